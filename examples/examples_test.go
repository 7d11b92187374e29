// Package examples holds the two example services the README runs the tool
// on; this test keeps them honest: every rule marker in examples/flagged is
// reported on its line, nothing else is, and examples/remediated is clean.
package examples

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/signals"
)

type diagnostic struct {
	Posn     string `json:"posn"`
	Category string `json:"category"`
	Message  string `json:"message"`
}

var bin string

// TestMain builds gatesift-vet once for both tests.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "examples")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "gatesift-vet")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gatesift-vet").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs gatesift-vet with -json on one example.
func run(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	cmd := exec.Command(bin, "-json", "-test=false", pattern)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gatesift-vet -json %s: %v\n%s", pattern, err, out)
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatalf("parse: %v\n%s", err, out)
	}
	found := map[string][]string{} // "file:line" -> IDs
	for _, byAnalyzer := range tree {
		for name, raw := range byAnalyzer {
			var diags []diagnostic
			if err := json.Unmarshal(raw, &diags); err != nil {
				t.Fatalf("analyzer %s failed: %s", name, raw)
			}
			for _, d := range diags {
				parts := strings.Split(d.Posn, ":")
				key := filepath.Base(parts[0]) + ":" + parts[1]
				found[key] = append(found[key], d.Category)
			}
		}
	}
	return found
}

var marker = regexp.MustCompile(`//.*?\b((?:LE\d{4}\s*)+)`)

// expected reads the rule markers of the example's files, keeping rules
// that are registered in this build.
func expected(t *testing.T, dir string) map[string][]string {
	registered := map[string]bool{}
	for _, a := range suite.All() {
		if r, ok := signals.Lookup(a.Name); ok && r.Default {
			registered[r.ID] = true
		}
	}
	want := map[string][]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for line := 1; sc.Scan(); line++ {
			m := marker.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			for _, id := range strings.Fields(m[1]) {
				if registered[id] {
					key := filepath.Base(f) + ":" + itoa(line)
					want[key] = append(want[key], id)
				} else {
					t.Logf("%s:%d expects %s, which is not registered in this build", filepath.Base(f), line, id)
				}
			}
		}
		fh.Close()
	}
	return want
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestFlaggedExampleReportsEveryMarker(t *testing.T) {
	got := run(t, "./examples/flagged/")
	want := expected(t, "flagged")
	if len(want) == 0 {
		t.Fatal("no markers found in examples/flagged")
	}
	for at, ids := range want {
		for _, id := range ids {
			if !contains(got[at], id) {
				t.Errorf("%s: want %s, got %v", at, id, got[at])
			}
		}
	}
	for at, ids := range got {
		for _, id := range ids {
			if !contains(want[at], id) {
				t.Errorf("%s: unexpected %s (add a marker if it is right)", at, id)
			}
		}
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("findings at %v", keys)
}

func TestRemediatedExampleIsClean(t *testing.T) {
	if got := run(t, "./examples/remediated/"); len(got) != 0 {
		t.Fatalf("remediated example has findings: %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestInventoryReport checks -report=json on both examples: every job and
// lock of the flagged service is a finding, every entry of the remediated
// twin is coordinated, each binary lists only its own entries, and the
// markdown form lists the same entries.
func TestInventoryReport(t *testing.T) {
	cmd := exec.Command(bin, "-report=json", "-test=false", "./examples/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("-report=json: %v\n%s", err, out)
	}
	type entry struct {
		Kind string `json:"kind"`
		Site struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"site"`
		Verdict string `json:"verdict"`
		Rule    string `json:"rule"`
	}
	var report struct {
		Binaries []struct {
			Name    string  `json:"name"`
			Entries []entry `json:"entries"`
		} `json:"binaries"`
		Library []entry `json:"library"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("parse: %v\n%s", err, out)
	}
	want := map[string]string{"flagged": "finding", "remediated": "coordinated"}
	count := map[string]int{}
	rows := len(report.Library)
	for _, b := range report.Binaries {
		for _, e := range b.Entries {
			rows++
			if !strings.HasPrefix(e.Site.File, "examples/"+b.Name+"/") {
				t.Errorf("%s:%d listed under binary %s", e.Site.File, e.Site.Line, b.Name)
			}
			count[b.Name+" "+e.Kind]++
			if w, ok := want[b.Name]; ok && e.Verdict != w {
				t.Errorf("%s:%d: %s verdict %q, want %s", e.Site.File, e.Site.Line, e.Kind, e.Verdict, w)
			}
		}
	}
	if count["flagged job"] < 4 || count["flagged lock"] < 1 || count["remediated job"] < 1 || count["remediated election"] < 1 {
		t.Fatalf("inventory lists %v, want at least 4 jobs and a lock in flagged, a job and an election in remediated:\n%s", count, out)
	}
	md := exec.Command(bin, "-report=markdown", "-test=false", "./examples/...")
	md.Dir = ".."
	table, err := md.Output()
	if err != nil {
		t.Fatalf("-report=markdown: %v", err)
	}
	if n := strings.Count(string(table), "\n| `examples/"); n != rows {
		t.Errorf("markdown lists %d rows, json %d", n, rows)
	}
}
