package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/config"
)

type testFact struct{}

func (*testFact) AFact() {}

// factsOnly keeps what produces facts and what they need, and turns the
// rest into shells with the same names and flags that do nothing.
func TestFactsOnly(t *testing.T) {
	ran := map[string]int{}
	mk := func(name string, facts bool, requires ...*analysis.Analyzer) *analysis.Analyzer {
		a := &analysis.Analyzer{Name: name, Doc: name, Requires: requires,
			Run: func(*analysis.Pass) (any, error) { ran[name]++; return nil, nil }}
		a.Flags.Bool("strict", false, "a flag go vet may pass")
		if facts {
			a.FactTypes = []analysis.Fact{new(testFact)}
		}
		return a
	}
	helper := mk("helper", false)            // needed by the fact producer
	producer := mk("producer", true, helper) // exports facts
	unrelated := mk("unrelated", false)      // needed by a rule only
	rule := mk("rule", false, producer, unrelated)
	top := mk("top", false, rule)          // like the directives rule
	plain := mk("plain", false, unrelated) // uses no facts at all
	got := factsOnly([]*analysis.Analyzer{rule, top, plain, producer})
	if err := analysis.Validate(got); err != nil {
		t.Fatal(err)
	}
	if got[3] != producer || producer.Requires[0] != helper {
		t.Errorf("the fact producer and what it needs must be kept as they are")
	}
	for i, orig := range []*analysis.Analyzer{rule, top, plain} {
		s := got[i]
		if s == orig || s.Name != orig.Name || s.Flags.Lookup("strict") == nil {
			t.Errorf("%s: want a shell with the same name and flags, got %+v", orig.Name, s)
		}
		if _, err := s.Run(nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(ran) != 0 {
		t.Errorf("a shell ran the original analysis: %v", ran)
	}
	// The shell of rule requires the producer (so its facts are still
	// computed) and not the unrelated requirement; top reaches the
	// producer through rule's shell; plain requires nothing.
	if !reflect.DeepEqual(got[0].Requires, []*analysis.Analyzer{producer}) {
		t.Errorf("rule's shell requires %v, want the producer only", got[0].Requires)
	}
	if len(got[1].Requires) != 1 || got[1].Requires[0] != got[0] {
		t.Errorf("top's shell requires %v, want rule's shell", got[1].Requires)
	}
	if len(got[2].Requires) != 0 {
		t.Errorf("plain's shell requires %v, want nothing", got[2].Requires)
	}
}

// On the real suite, every fact type is still produced by the analyzer that
// declares it, and only by analyzers reachable from the shells.
func TestFactsOnlySuite(t *testing.T) {
	all := analyzers(config.Source{})
	producers := func(roots []*analysis.Analyzer) map[*analysis.Analyzer]bool {
		out := map[*analysis.Analyzer]bool{}
		var visit func(a *analysis.Analyzer)
		visit = func(a *analysis.Analyzer) {
			if len(a.FactTypes) > 0 {
				out[a] = true
			}
			for _, r := range a.Requires {
				visit(r)
			}
		}
		for _, a := range roots {
			visit(a)
		}
		return out
	}
	before, after := producers(all), producers(factsOnly(all))
	if len(before) == 0 || !reflect.DeepEqual(before, after) {
		t.Errorf("fact producers: %d before, %d after factsOnly", len(before), len(after))
	}
}

// The vetx file of a standard-library dependency is byte for byte the one
// unitchecker writes with the whole suite (testdata/unitref).
func TestStdVetxMatchesUnitchecker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	bin := filepath.Join(t.TempDir(), "unitref")
	if out, err := exec.Command("go", "build", "-o", bin,
		fmt.Sprintf("-ldflags=-X=main.nonce=%d", time.Now().UnixNano()), "./testdata/unitref").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := writeModule(t, map[string]string{"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n"})
	cmd := exec.Command("go", "vet", "-work", "-vettool="+bin, ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^WORK=(.*)$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no WORK= in\n%s", out)
	}
	work := string(m[1])
	defer os.RemoveAll(work)
	cfgs, _ := filepath.Glob(filepath.Join(work, "*", "vet.cfg"))
	checked := 0
	for _, unit := range cfgs {
		cfg, err := readUnitConfig(unit)
		if err != nil {
			t.Fatal(err)
		}
		if !isStdDependency(cfg) {
			continue
		}
		want, err := os.ReadFile(cfg.VetxOutput)
		if err != nil {
			t.Fatal(err)
		}
		cfg.VetxOutput = filepath.Join(t.TempDir(), "vet.out")
		cfg.Stdout = ""
		if err := writeStdVetx(cfg); err != nil {
			t.Fatalf("%s: %v", cfg.ImportPath, err)
		}
		got, err := os.ReadFile(cfg.VetxOutput)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: vetx differs from unitchecker's (%d bytes, want %d)", cfg.ImportPath, len(got), len(want))
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d standard-library units checked (fmt alone has more)", checked)
	}
	// The module's own package is not one.
	for _, unit := range cfgs {
		if cfg, _ := readUnitConfig(unit); cfg != nil && cfg.ImportPath == "example.com/x" && isStdDependency(cfg) {
			t.Errorf("the analyzed package counted as a standard-library dependency")
		}
	}
}
