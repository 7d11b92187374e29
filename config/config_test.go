package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindStopsAtModuleRoot(t *testing.T) {
	outer := t.TempDir()
	write(t, filepath.Join(outer, FileName), "profile: strict\n")
	mod := filepath.Join(outer, "mod")
	write(t, filepath.Join(mod, "go.mod"), "module m\n")
	pkg := filepath.Join(mod, "a", "b")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(pkg); got != "" {
		t.Fatalf("Find crossed the module root: %s", got)
	}
	write(t, filepath.Join(mod, "a", FileName), "checks: [default, LE3003]\n")
	if got := Find(pkg); got != filepath.Join(mod, "a", FileName) {
		t.Fatalf("Find = %q", got)
	}
	s, err := Source{}.ForDir(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Enabled("LE3003") || !s.Enabled("LE1001") || s.Strict() {
		t.Errorf("settings wrong: %+v", s)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := map[string]string{
		"profile: strict\nchecks: [LE1001]\nbogus: 1\n": `unknown key "bogus" at x.yaml:3; the keys here are checks, exclude, generated, knowledge, profile, severity, tests`,
		"profile: lax\n":              "profile \"lax\"",
		"checks: [LE77]\n":            "matches no rule",
		"severity: {LE1001: fatal}\n": "want error, warning or note",
		"exclude: ['[']\n":            "exclude",
		"knowledge:\n  effects:\n    - {pkg: x, name: Y, kynd: send}\n": `unknown key "kynd" in knowledge.effects[0] at x.yaml:3; did you mean "kind"?`,
		"tests: maybe\n":                   "x.yaml:1: cannot unmarshal !!str `maybe` into bool",
		"checks: [default, LE77]\n":        "x.yaml:1: checks: \"LE77\" matches no rule",
		"checks:\n  - default\n  - LE77\n": "x.yaml:3: checks: \"LE77\" matches no rule",
		"profile: strict\n\n\n":            "",
	}
	for in, want := range cases {
		_, err := Parse("x.yaml", []byte(in))
		if want == "" {
			if err != nil {
				t.Errorf("Parse(%q) err = %v, want none", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) err = %v, want %q", in, err, want)
		}
	}
}

// TestParseReportsEveryError: one run names every problem of the file, in
// the user's words, each with its line.
func TestParseReportsEveryError(t *testing.T) {
	in := `checks: [default]
severity: {LE1001: warning, LE9999: note}
profil: strict
exclud: [x]
profile: lax
knowledge:
  efects: []
`
	_, err := Parse(".gatesift.yaml", []byte(in))
	want := `unknown key "profil" at .gatesift.yaml:3; did you mean "profile"?
unknown key "exclud" at .gatesift.yaml:4; did you mean "exclude"?
unknown key "efects" in knowledge at .gatesift.yaml:7; did you mean "effects"?
.gatesift.yaml:5: profile "lax": want default or strict
.gatesift.yaml:2: severity: no rule "LE9999"`
	if err == nil || err.Error() != want {
		t.Errorf("Parse err =\n%v\nwant\n%s", err, want)
	}
	if _, err := Parse(".gatesift.yaml", []byte("checks: [\n")); err == nil || !strings.HasPrefix(err.Error(), ".gatesift.yaml:") {
		t.Errorf("a syntax error: %v", err)
	}
}

func TestNearest(t *testing.T) {
	fields := yamlFields(reflect.TypeFor[Config]())
	for key, want := range map[string]string{
		"profil":   "profile",
		"Profile":  "profile",
		"check":    "checks",
		"exlcude":  "exclude", // a transposition is two edits
		"severty":  "severity",
		"test":     "tests",
		"bogus":    "",
		"p":        "",
		"tst":      "", // two edits of three letters is a different word
		"chekcsss": "",
	} {
		if got := nearest(key, fields); got != want {
			t.Errorf("nearest(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestExcluded(t *testing.T) {
	s := &Settings{Dir: "/m", Config: &Config{Exclude: []string{"gen", "internal/legacy/*.go"}}}
	for f, want := range map[string]bool{
		"/m/gen/x.go":               true,
		"/m/internal/legacy/a.go":   true,
		"/m/internal/legacy/b/c.go": false,
		"/m/cmd/main.go":            false,
		"/other/gen/x.go":           false,
	} {
		if got := s.Excluded(f); got != want {
			t.Errorf("Excluded(%s) = %v, want %v", f, got, want)
		}
	}
}

func TestDigestChangesWithAnyConfig(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module m\n")
	var src Source
	d0 := src.Digest(mod)
	write(t, filepath.Join(mod, "sub", FileName), "profile: strict\n")
	d1 := src.Digest(mod)
	write(t, filepath.Join(mod, "sub", FileName), "profile: default\n")
	d2 := src.Digest(mod)
	if d0 == d1 || d1 == d2 || d0 == d2 {
		t.Fatalf("digest did not follow edits: %s %s %s", d0, d1, d2)
	}
	if src.Digest(mod) != d2 {
		t.Fatalf("digest not stable")
	}
}

// Two sources in one process resolve the same directory each their own way:
// nothing of one is left in the other (there is no process-wide cache).
func TestSourcesAreIndependent(t *testing.T) {
	mod := t.TempDir()
	write(t, filepath.Join(mod, "go.mod"), "module m\n")
	write(t, filepath.Join(mod, FileName), "checks: [default, LE3003]\n")
	strict := Source{Overrides: Overrides{Profile: "strict", Checks: "-LE1001"}}
	plain := Source{}
	checkStrict := func() {
		s, err := strict.ForDir(mod)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Strict() || s.Enabled("LE1001") || !s.Enabled("LE3003") {
			t.Errorf("strict source: %+v", s)
		}
	}
	checkPlain := func() {
		p, err := plain.ForDir(mod)
		if err != nil {
			t.Fatal(err)
		}
		if p.Strict() || !p.Enabled("LE1001") || !p.Enabled("LE3003") {
			t.Errorf("plain source: %+v", p)
		}
	}
	checkStrict()
	checkPlain()
	checkStrict()
	// A whole configuration replaces discovery, and its excludes are
	// dropped (they would be relative to no directory).
	whole := Source{Overrides: Overrides{Config: &Config{Checks: []string{"none"}, Exclude: []string{"*"}}}}
	s, err := whole.ForDir(mod)
	if err != nil {
		t.Fatal(err)
	}
	if s.Enabled("LE1001") || s.Enabled("LE3003") || s.File != "" || s.Excluded(filepath.Join(mod, "a.go")) {
		t.Errorf("whole-configuration source: %+v", s)
	}
	// A ReadFile hook serves the file instead of the disk.
	served := Source{ReadFile: func(string) ([]byte, error) { return []byte("profile: strict\n"), nil }}
	if s, err := served.ForDir(mod); err != nil || !s.Strict() {
		t.Errorf("ReadFile hook not used: %+v, %v", s, err)
	}
}
