package patterns_test

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/gatesift/gatesift-vet/docs/patterns"
	"github.com/gatesift/gatesift-vet/signals"
)

// The ten rules of the design (signals.md); the registry must list exactly
// these, and the document must describe each as the registry does.
var wantIDs = []string{
	"LE1001", "LE1002", "LE2001", "LE3001", "LE3002",
	"LE3003", "LE3004", "LE4001", "LE4002", "LE9001",
}

var subheadings = []string{
	"### What it sees",
	"### Why it matters",
	"### Bad",
	"### Good",
	"### How to fix",
	"### Precision",
}

func TestEverySectionIsComplete(t *testing.T) {
	var ids []string
	for _, r := range signals.Rules {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
		t.Fatalf("registry rules %v, want %v", ids, wantIDs)
	}
	for _, r := range signals.Rules {
		s, ok := patterns.Section(r.ID)
		if !ok {
			t.Errorf("Section(%q): no section", r.ID)
			continue
		}
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if want := `<a id="` + r.ID + `"></a>`; lines[0] != want {
			t.Errorf("%s: first line %q, want %q", r.ID, lines[0], want)
		}
		if want := "## " + r.ID + ": " + r.Name; len(lines) < 2 || lines[1] != want {
			t.Errorf("%s: second line is not %q", r.ID, want)
		}
		var got []string
		inCode := false
		for _, l := range lines {
			if strings.HasPrefix(l, "```") {
				inCode = !inCode
			}
			if !inCode && strings.HasPrefix(l, "### ") {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(subheadings, "\n") {
			t.Errorf("%s: level-3 headings %q, want %q", r.ID, got, subheadings)
		}
		def := "off"
		if r.Default {
			def = "on"
		}
		if want := "Default: " + def + ". Since: " + r.Since + "."; lines[len(lines)-1] != want {
			t.Errorf("%s: last line %q, want %q", r.ID, lines[len(lines)-1], want)
		}
		if byName, ok := patterns.Section(r.Name); !ok || byName != s {
			t.Errorf("Section(%q) does not return the section of %s", r.Name, r.ID)
		}
		if lower, ok := patterns.Section(strings.ToLower(r.ID)); !ok || lower != s {
			t.Errorf("Section(%q) does not return the section of %s", strings.ToLower(r.ID), r.ID)
		}
	}
}

func TestUnknownRule(t *testing.T) {
	for _, id := range []string{"LE0000", "", "LE100", "## LE1001: localsingleton"} {
		if s, ok := patterns.Section(id); ok {
			t.Errorf("Section(%q) = %q, true; want false", id, s)
		}
	}
}

// Every anchor in the document is one of the ten rules, each exactly once, in
// ID order, so that nothing but a rule section follows the first anchor.
func TestAnchorsAreTheRules(t *testing.T) {
	var ids []string
	for _, m := range regexp.MustCompile(`<a id="([^"]*)"></a>`).FindAllStringSubmatch(patterns.LeaderElection, -1) {
		ids = append(ids, m[1])
	}
	if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
		t.Errorf("anchors %v, want %v", ids, wantIDs)
	}
}

// Every Go example parses, as a file body or as statements in a function.
func TestExamplesParse(t *testing.T) {
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(patterns.LeaderElection, -1)
	if len(blocks) < 20 {
		t.Fatalf("found %d Go examples, want at least one bad and one good per rule", len(blocks))
	}
	fset := token.NewFileSet()
	for _, b := range blocks {
		src := b[1]
		if _, err := parser.ParseFile(fset, "", "package p\n"+src, 0); err == nil {
			continue
		}
		if _, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+src+"}\n", 0); err != nil {
			t.Errorf("example does not parse: %v\n%s", err, src)
		}
	}
}
