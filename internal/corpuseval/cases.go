package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Case is one labeled location in a real public module. The YAML format is
// documented in the header of corpus/cases.yaml.
type Case struct {
	ID      string   `yaml:"id" json:"id"`
	Module  string   `yaml:"module" json:"module"` // module@version
	Package string   `yaml:"package" json:"package"`
	File    string   `yaml:"file" json:"file"` // file or folder, relative to the module root
	Lines   []int    `yaml:"lines" json:"lines"`
	Expect  []string `yaml:"expect" json:"expect"` // empty: true negative
	Notes   string   `yaml:"notes" json:"notes,omitempty"`

	// Source is "file:line" of the case's entry, for error messages.
	Source string `yaml:"-" json:"source"`
}

// Positive reports whether the case expects a finding (as opposed to a true
// negative that must stay silent).
func (c Case) Positive() bool { return len(c.Expect) > 0 }

// ModulePath returns the module path part of Module (before the last "@").
func (c Case) ModulePath() string {
	i := strings.LastIndex(c.Module, "@")
	if i < 0 {
		return c.Module
	}
	return c.Module[:i]
}

// Version returns the version part of Module.
func (c Case) Version() string {
	i := strings.LastIndex(c.Module, "@")
	return c.Module[i+1:]
}

var ruleIDRe = regexp.MustCompile(`^LE[0-9]{4}$`)

// readCaseFiles reads and validates every file, and rejects an ID that appears
// twice anywhere, since results are keyed by ID.
func readCaseFiles(files []string) ([]Case, error) {
	var all []Case
	seen := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cs, err := parseCases(f, data)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if prev, dup := seen[c.ID]; dup {
				return nil, fmt.Errorf("%s: case %q already defined at %s", c.Source, c.ID, prev)
			}
			seen[c.ID] = c.Source
		}
		all = append(all, cs...)
	}
	return all, nil
}

// parseCases decodes one cases file strictly: unknown fields are errors, and
// yaml.v3 reports them with the line number, which we prefix with the file name.
func parseCases(name string, data []byte) ([]Case, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cases []Case
	if err := dec.Decode(&cases); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty (or comment-only) file holds no cases
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// A second document in the same file would silently be ignored otherwise.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: only one YAML document (a list of cases) is allowed", name)
	}

	// Decode again as a node tree only to learn each entry's line number.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var lines []int
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.SequenceNode {
		for _, n := range root.Content[0].Content {
			lines = append(lines, n.Line)
		}
	}
	for i := range cases {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		cases[i].Source = fmt.Sprintf("%s:%d", name, line)
		if err := cases[i].validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", cases[i].Source, err)
		}
	}
	return cases, nil
}

func (c *Case) validate() error {
	if c.ID == "" {
		return errors.New("case without id")
	}
	where := fmt.Sprintf("case %q", c.ID)
	i := strings.LastIndex(c.Module, "@")
	if i <= 0 || i == len(c.Module)-1 {
		return fmt.Errorf("%s: module must be module@version, got %q", where, c.Module)
	}
	if c.Package == "" {
		return fmt.Errorf("%s: package is required", where)
	}
	if c.Package != c.ModulePath() && !strings.HasPrefix(c.Package, c.ModulePath()+"/") {
		return fmt.Errorf("%s: package %q is not inside module %q", where, c.Package, c.ModulePath())
	}
	if c.File == "" || path.IsAbs(c.File) || strings.Contains(c.File, `\`) ||
		path.Clean(c.File) != strings.TrimSuffix(c.File, "/") || strings.HasPrefix(c.File, "..") {
		return fmt.Errorf("%s: file must be a clean slash path relative to the module root, got %q", where, c.File)
	}
	c.File = strings.TrimSuffix(c.File, "/")
	if len(c.Lines) != 2 || c.Lines[0] < 1 || c.Lines[1] < c.Lines[0] {
		return fmt.Errorf("%s: lines must be [first, last] with 1 <= first <= last, got %v", where, c.Lines)
	}
	// nil means the key was missing; [] is a deliberate true negative.
	if c.Expect == nil {
		return fmt.Errorf("%s: expect is required (use [] for a true negative)", where)
	}
	for _, id := range c.Expect {
		if !ruleIDRe.MatchString(id) {
			return fmt.Errorf("%s: expect holds %q, not a rule ID like LE1001", where, id)
		}
	}
	return nil
}
