// Package config finds, parses and resolves .gatesift.yaml: which checks run,
// the profile, severity overrides, path excludes, and the project's own
// knowledge (schedulers, effects, locks, coordinators, per-replica and
// leader-only functions) added to the built-in knowledge base.
//
// The file is found by walking up from a package's directory to its module
// root (the nearest directory with a go.mod); the nearest file wins. Parsing
// is strict: an unknown key is an error naming the file and line and the
// key that was probably meant, and every problem of a file is reported at
// once.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gatesift/gatesift-vet/signals"
)

// FileName is the name of the configuration file.
const FileName = ".gatesift.yaml"

// Config is the file's content. The same struct decodes from JSON for the
// golangci-lint plugin settings.
type Config struct {
	// Checks selects the rules, staticcheck-style: [LE1*] runs only the
	// LE1xxx rules, [default, LE3003] adds LE3003 to the defaults,
	// [-LE1002] removes LE1002 from them; "all" and "none" too.
	Checks []string `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Profile is "default" or "strict" (strict also reports idempotent-only
	// work).
	Profile string `yaml:"profile,omitempty" json:"profile,omitempty"`
	// Severity maps a rule ID or name to "error", "warning" or "note" (SARIF
	// level).
	Severity map[string]string `yaml:"severity,omitempty" json:"severity,omitempty"`
	// Exclude lists slash-separated path globs, relative to the directory of
	// the file, whose findings are dropped ("internal/legacy/*", "gen").
	Exclude []string `yaml:"exclude,omitempty" json:"exclude,omitempty"`
	// Tests and Generated opt in to analyzing _test.go and generated files.
	Tests     bool `yaml:"tests,omitempty" json:"tests,omitempty"`
	Generated bool `yaml:"generated,omitempty" json:"generated,omitempty"`
	// Knowledge extends the built-in knowledge base with the project's own
	// APIs, in the format of signals/kb/*.yaml.
	Knowledge *signals.Knowledge `yaml:"knowledge,omitempty" json:"knowledge,omitempty"`
}

// Parse decodes a .gatesift.yaml strictly and validates it. It reports
// every problem it finds, one per line of the error, each with the file and
// line: unknown keys (with the nearest known key), values of the wrong type,
// and values no rule accepts.
func Parse(filename string, data []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, signals.YAMLError(filename, err) // a syntax error: nothing more to check
	}
	c := new(Config)
	if doc.Kind == 0 {
		return c, nil // an empty file is an empty document
	}
	lines := make(map[string]int)
	errs := checkKeys(filename, &doc, reflect.TypeFor[Config](), "", lines)
	if err := doc.Decode(c); err != nil {
		errs = append(errs, signals.YAMLError(filename, err))
	}
	errs = append(errs, c.validate(filename, lines)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// validate returns every value no rule accepts, each at filename:line
// where lines (from checkKeys; nil for JSON) knows the value's line.
func (c *Config) validate(filename string, lines map[string]int) []error {
	at := func(path string) string {
		if l, ok := lines[path]; ok {
			return fmt.Sprintf("%s:%d", filename, l)
		}
		return filename
	}
	var errs []error
	for i, term := range c.Checks {
		if _, err := signals.ParseChecks(term); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", at(fmt.Sprintf("checks[%d]", i)), err))
		}
	}
	if _, err := signals.ParseProfile(c.Profile); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", at("profile"), err))
	}
	for _, rule := range slices.Sorted(maps.Keys(c.Severity)) {
		level := c.Severity[rule]
		if _, ok := signals.Lookup(rule); !ok {
			errs = append(errs, fmt.Errorf("%s: severity: no rule %q", at("severity."+rule), rule))
			continue
		}
		switch level {
		case "error", "warning", "note":
		default:
			errs = append(errs, fmt.Errorf("%s: severity of %s: %q, want error, warning or note", at("severity."+rule), rule, level))
		}
	}
	for i, pat := range c.Exclude {
		if _, err := path.Match(pat, ""); err != nil {
			errs = append(errs, fmt.Errorf("%s: exclude %q: %v", at(fmt.Sprintf("exclude[%d]", i)), pat, err))
		}
	}
	if k := c.Knowledge; k != nil {
		for _, sec := range []struct {
			key  string
			list []signals.API
		}{
			{"schedulers", k.Schedulers}, {"effects", k.Effects}, {"locks", k.Locks},
			{"coordinators", k.Coordinators}, {"guards", k.Guards}, {"designations", k.Designations},
			{"per_replica", k.PerReplica}, {"leader_only", k.LeaderOnly},
			{"engines", k.Engines}, {"commands", k.Commands},
		} {
			for i, a := range sec.list {
				if a.Pkg == "" || a.Name == "" {
					errs = append(errs, fmt.Errorf("%s: knowledge entry %s needs pkg and name", at(fmt.Sprintf("knowledge.%s[%d]", sec.key, i)), a.String()))
				}
			}
		}
	}
	return errs
}

// Overrides are the settings that win over the discovered file: a
// driver's command line (the gatesift-vet binary's -checks, -profile,
// -config) or a plugin's settings.
type Overrides struct {
	Checks  string // -checks: applied after the file's checks
	Profile string // -profile: replaces the file's profile
	File    string // -config: use this file instead of discovery
	// Config, when set, is used instead of any file (golangci-lint plugin
	// settings). Its excludes are ignored: their globs are relative to a
	// file's directory, which it has none of.
	Config *Config
}

// Source resolves the settings of package directories: the nearest
// .gatesift.yaml (or the override file or configuration) with the
// overrides applied. It is a value, held by whoever runs the analyzers, so
// two drivers in one process (two golangci-lint plugin instances, tests)
// each get their own; the zero Source is discovery with no overrides.
type Source struct {
	Overrides
	// ReadFile reads a configuration file; nil means os.ReadFile. A driver
	// that keeps unsaved files (an editor) can serve them here:
	// analysis.Pass.ReadFile cannot, since a .gatesift.yaml is none of the
	// package's files.
	ReadFile func(filename string) ([]byte, error)
}

func (src Source) readFile(name string) ([]byte, error) {
	if src.ReadFile != nil {
		return src.ReadFile(name)
	}
	return os.ReadFile(name)
}

// Settings is a configuration resolved for one directory: the file (if any)
// merged with the overrides and the built-in knowledge base.
type Settings struct {
	File      string // the .gatesift.yaml used, or ""
	Dir       string // the directory excludes are relative to
	Config    *Config
	Checks    signals.Checks
	Profile   signals.Profile
	Knowledge *signals.Knowledge
}

// Strict reports whether idempotent-only work is reported too.
func (s *Settings) Strict() bool { return s.Profile == signals.ProfileStrict }

// Enabled reports whether the rule with the given ID is on.
func (s *Settings) Enabled(id string) bool { return s.Checks.Enabled(signals.MustLookup(id)) }

// Excluded reports whether findings in filename are dropped by an exclude
// glob. A glob matches the path relative to the config's directory or any
// of its leading directories.
func (s *Settings) Excluded(filename string) bool {
	if s.Config == nil || len(s.Config.Exclude) == 0 {
		return false
	}
	rel, err := filepath.Rel(s.Dir, filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, pat := range s.Config.Exclude {
		for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if ok, _ := path.Match(strings.TrimSuffix(pat, "/"), p); ok {
				return true
			}
		}
	}
	return false
}

// ForDir resolves the settings for a package directory. It reads the
// file each time: the analyzers resolve once per package (package
// settings), a driver caches what it needs itself.
func (src Source) ForDir(dir string) (*Settings, error) {
	s := &Settings{Config: new(Config)}
	switch {
	case src.Config != nil:
		c := *src.Config
		c.Exclude = nil
		s.Config = &c
	default:
		file := src.File
		if file == "" {
			file = Find(dir)
		}
		s.File, s.Dir = file, filepath.Dir(file)
		if file != "" {
			data, err := src.readFile(file)
			if err != nil {
				return nil, err
			}
			if s.Config, err = Parse(file, data); err != nil {
				return nil, err
			}
		}
	}
	// The command line applies after the file, with the same rules: a list
	// that starts by naming rules replaces the file's selection.
	var err error
	if s.Checks, err = signals.ParseChecks(strings.Join(s.Config.Checks, ",")); err != nil {
		return nil, err
	}
	flagChecks, err := signals.ParseChecks(src.Checks)
	if err != nil {
		return nil, err
	}
	s.Checks = append(s.Checks, flagChecks...)
	profile := s.Config.Profile
	if src.Profile != "" {
		profile = src.Profile
	}
	if s.Profile, err = signals.ParseProfile(profile); err != nil {
		return nil, err
	}
	builtin, err := signals.Builtin()
	if err != nil {
		return nil, err
	}
	s.Knowledge = builtin
	if s.Config.Knowledge != nil {
		// A fresh merged copy: the built-in base is shared and read-only.
		merged := new(signals.Knowledge)
		merged.Merge(builtin)
		merged.Merge(s.Config.Knowledge)
		s.Knowledge = merged
	}
	return s, nil
}

// Find returns the nearest .gatesift.yaml from dir up to the module root, or
// "" when there is none.
func Find(dir string) string {
	for d := filepath.Clean(dir); ; {
		f := filepath.Join(d, FileName)
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return "" // the module root ends the walk
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
