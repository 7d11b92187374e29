package patterns

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"
)

// The rules of /work/shared/design/signals.md: ID, analyzer name, default.
var rules = []struct {
	id, name string
	on       bool
}{
	{"LE1001", "localsingleton", true},
	{"LE1002", "staticleader", true},
	{"LE2001", "competingschedulers", true},
	{"LE3001", "lockexpiry", true},
	{"LE3002", "unsafeunlock", true},
	{"LE3003", "unfencedwrite", false},
	{"LE3004", "lockrenewal", true},
	{"LE4001", "leadershiploss", true},
	{"LE4002", "leasetiming", true},
	{"LE9001", "directives", true},
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
	for _, r := range rules {
		s, ok := Section(r.id)
		if !ok {
			t.Errorf("Section(%q): no section", r.id)
			continue
		}
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if want := `<a id="` + r.id + `"></a>`; lines[0] != want {
			t.Errorf("%s: first line %q, want %q", r.id, lines[0], want)
		}
		if want := "## " + r.id + ": " + r.name; len(lines) < 2 || lines[1] != want {
			t.Errorf("%s: second line is not %q", r.id, want)
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
			t.Errorf("%s: level-3 headings %q, want %q", r.id, got, subheadings)
		}
		def := "off"
		if r.on {
			def = "on"
		}
		if want := "Default: " + def + ". Since: v0.1.0."; lines[len(lines)-1] != want {
			t.Errorf("%s: last line %q, want %q", r.id, lines[len(lines)-1], want)
		}
		if byName, ok := Section(r.name); !ok || byName != s {
			t.Errorf("Section(%q) does not return the section of %s", r.name, r.id)
		}
		if lower, ok := Section(strings.ToLower(r.id)); !ok || lower != s {
			t.Errorf("Section(%q) does not return the section of %s", strings.ToLower(r.id), r.id)
		}
	}
}

func TestUnknownRule(t *testing.T) {
	for _, id := range []string{"LE0000", "", "LE100", "## LE1001: localsingleton"} {
		if s, ok := Section(id); ok {
			t.Errorf("Section(%q) = %q, true; want false", id, s)
		}
	}
}

// Every anchor in the document is one of the ten rules, each exactly once, in
// ID order, so that nothing but a rule section follows the first anchor.
func TestAnchorsAreTheRules(t *testing.T) {
	var ids []string
	for _, m := range regexp.MustCompile(`<a id="([^"]*)"></a>`).FindAllStringSubmatch(LeaderElection, -1) {
		ids = append(ids, m[1])
	}
	var want []string
	for _, r := range rules {
		want = append(want, r.id)
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("anchors %v, want %v", ids, want)
	}
}

// Every Go example parses, as a file body or as statements in a function.
func TestExamplesParse(t *testing.T) {
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(LeaderElection, -1)
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
