package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// siteMarkerRe reads the expectations written into the fixture files: a
// line ending in "// site: KIND PATTERN" must be discovered with that kind
// and pattern, and no other line may be.
var siteMarkerRe = regexp.MustCompile(`// site: (job|lock|election) (.+)$`)

func fixtureExpectations(t *testing.T, root string) []string {
	t.Helper()
	var want []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(data), "\n") {
			if m := siteMarkerRe.FindStringSubmatch(line); m != nil {
				want = append(want, siteKey(filepath.ToSlash(rel), i+1, m[1], strings.TrimSpace(m[2])))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	return want
}

func siteKey(file string, line int, kind, pattern string) string {
	return file + ":" + strconv.Itoa(line) + " " + kind + " " + pattern
}

// TestDiscoverModule checks the syntactic discovery on the fixture module:
// every marked line is found with its kind and pattern, nothing else is
// (process-local mutexes, one-shot timers, timeouts, bounded polls, loops
// without a wait, the outer loop of a nested sleep loop), and test files,
// testdata and vendor are not read.
func TestDiscoverModule(t *testing.T) {
	root := filepath.Join("testdata", "firstcontact", "mod")
	sites, err := discoverModule(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sites {
		got = append(got, siteKey(s.File, s.Line, s.Kind, s.Pattern))
		if strings.HasSuffix(s.File, "_test.go") || strings.HasPrefix(s.File, "testdata/") || strings.HasPrefix(s.File, "vendor/") {
			t.Errorf("site in a file that must not be read: %s", s.File)
		}
	}
	sort.Strings(got)
	want := fixtureExpectations(t, root)
	if len(want) < 20 {
		t.Fatalf("fixture has only %d markers; the marker syntax changed?", len(want))
	}
	missing, extra := diffSorted(want, got)
	for _, m := range missing {
		t.Errorf("not discovered: %s", m)
	}
	for _, e := range extra {
		t.Errorf("discovered, not marked: %s", e)
	}
}

// TestDiscoverFunctionNames checks the enclosing-function names the join
// relies on: methods as Recv.Name, closures under their declaration.
func TestDiscoverFunctionNames(t *testing.T) {
	src := []byte(`package p

import "time"

type S struct{}

func (s *S) run() {
	go func() {
		time.NewTicker(time.Second)
	}()
}

var tick = time.Tick(time.Second)
`)
	sites := discoverFile("p.go", src)
	var got []string
	for _, s := range sites {
		got = append(got, s.Function+"@"+strconv.Itoa(s.Line))
	}
	want := []string{"S.run@9", "tick@13"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("functions = %v, want %v", got, want)
	}
	if discoverFile("bad.go", []byte("package")) != nil {
		t.Error("a file that does not parse has sites")
	}
}

func diffSorted(want, got []string) (missing, extra []string) {
	w := map[string]int{}
	for _, x := range want {
		w[x]++
	}
	for _, x := range got {
		if w[x] > 0 {
			w[x]--
		} else {
			extra = append(extra, x)
		}
	}
	for _, x := range want {
		if w[x] > 0 {
			missing = append(missing, x)
			w[x]--
		}
	}
	return missing, extra
}

func inv(kind, file string, line int, fn, verdict string, rules ...string) InvEntry {
	var e InvEntry
	e.Kind, e.Site.File, e.Site.Line, e.Function, e.Verdict, e.Rules = kind, file, line, fn, verdict, rules
	return e
}

// TestJoin checks each status and the matching rules: same line; same
// file and function within the window (a sleep loop the tool places at its
// go statement); not across functions, kinds or beyond the window; a
// finding on the line without an inventory entry; entries no site matched.
func TestJoin(t *testing.T) {
	sites := []Site{
		{Kind: "job", Pattern: "time.NewTicker", File: "a.go", Line: 10, Function: "Server.loop"},            // same line as E0: reported
		{Kind: "job", Pattern: "sleep loop (time.Sleep)", File: "a.go", Line: 30, Function: "sweep"},         // E1 at 25 in sweep: silent
		{Kind: "job", Pattern: "time.AfterFunc", File: "a.go", Line: 50, Function: "other"},                  // E1 is in sweep: not recognized
		{Kind: "lock", Pattern: ".Lock(...)", File: "a.go", Line: 11, Function: "Server.loop"},               // E0 is a job: not it; finding on 11: reported
		{Kind: "job", Pattern: "time.NewTicker", File: "a.go", Line: 25 + joinWindow + 1, Function: "sweep"}, // beyond the window
		{Kind: "lock", Pattern: "redis SetNX", File: "b.go", Line: 7, Function: "acquire"},                   // E2 election at 9, same function: silent
		{Kind: "job", Pattern: "time.NewTicker", File: "c.go", Line: 10, Function: "run"},                    // E0's file differs: not recognized
	}
	entries := []InvEntry{
		inv("job", "a.go", 10, "(*Server).loop", "finding", "LE1001"),
		inv("job", "a.go", 25, "sweep$1", "per-replica"),
		inv("election", "b.go", 9, "acquire", "coordinated"),
		inv("job", "d.go", 3, "tick", "coordinated"),
	}
	findings := []Finding{
		{Category: "LE1001", File: "a.go", Line: 10},
		{Category: "LE3001", File: "a.go", Line: 11},
		{Category: "LE1001", File: "a.go", Line: 12}, // no entry on its line; E0 lists LE1001 and is 2 lines away
		{Category: "LE2001", File: "z.go", Line: 1},
	}
	j := join(findings, entries, sites)
	wantStatus := []string{statusReported, statusSilent, statusNotRecognized, statusReported, statusNotRecognized, statusSilent, statusNotRecognized}
	wantEntry := []int{0, 1, -1, -1, -1, 2, -1}
	for i, js := range j.Sites {
		if js.Status != wantStatus[i] || js.Entry != wantEntry[i] {
			t.Errorf("site %d (%s:%d): status %q entry %d, want %q entry %d", i, sites[i].File, sites[i].Line, js.Status, js.Entry, wantStatus[i], wantEntry[i])
		}
	}
	if got := j.Sites[3].Rules; len(got) != 1 || got[0] != "LE3001" {
		t.Errorf("site 3 rules = %v, want [LE3001] from the finding on its line", got)
	}
	if got := j.Sites[1].Verdict; got != "per-replica" {
		t.Errorf("site 1 verdict = %q", got)
	}
	if len(j.ToolOnly) != 1 || j.ToolOnly[0] != 3 {
		t.Errorf("tool-only = %v, want [3]", j.ToolOnly)
	}
	wantFE := []int{0, -1, 0, -1}
	for i, jf := range j.Findings {
		if jf.Entry != wantFE[i] {
			t.Errorf("finding %d: entry %d, want %d", i, jf.Entry, wantFE[i])
		}
	}
	c := j.Counts
	if c.Reported != 2 || c.Silent != 2 || c.NotRecognized != 3 || c.ToolOnly != 1 || c.Verdicts["finding"] != 1 || c.Verdicts["coordinated"] != 2 {
		t.Errorf("counts = %+v", c)
	}
}

func TestBaseFunc(t *testing.T) {
	for in, want := range map[string]string{
		"(*Server).run$1": "run", "Server.run": "run", "run.func2": "run", "run": "run", "pkg.(*T).m$1$2": "m",
	} {
		if got := baseFunc(in); got != want {
			t.Errorf("baseFunc(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseInventory checks that entries reached by two binaries count once
// and library entries are kept.
func TestParseInventory(t *testing.T) {
	doc := `{"schema": 1, "binaries": [
	  {"name": "a", "entries": [{"kind": "job", "site": {"file": "x.go", "line": 3}, "verdict": "finding", "rules": ["LE1001"]}]},
	  {"name": "b", "entries": [{"kind": "job", "site": {"file": "x.go", "line": 3}, "verdict": "finding", "rules": ["LE1001"]},
	                            {"kind": "lock", "site": {"file": "y.go", "line": 4}, "verdict": "coordinated"},
	                            {"kind": "job", "site": {"file": "q.go", "line": 9}, "consumes": true, "verdict": "per-replica"}]}],
	  "library": [{"kind": "election", "site": {"file": "z.go", "line": 5}, "verdict": "coordinated"}]}`
	es, err := parseInventory([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 4 || es[0].Site.File != "x.go" || es[1].Kind != "lock" || !es[2].Consumes || es[3].Kind != "election" {
		t.Errorf("entries = %+v", es)
	}
	if _, err := parseInventory([]byte(`{"schema": 2}`)); err == nil {
		t.Error("schema 2 accepted")
	}
	if _, err := parseInventory(nil); err == nil {
		t.Error("empty output accepted")
	}
}

func TestParseFirstContact(t *testing.T) {
	mods, err := parseFirstContact("x.yaml", []byte(`modules:
  - module: example.com/a@v1.0.0
    batch: 1
  - module: example.com/b@v1.2.0
    patterns: [./cmd/..., ./internal/...]
    batch: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 2 || mods[0].Patterns[0] != "./..." || len(mods[1].Patterns) != 2 || mods[1].ModulePath() != "example.com/b" {
		t.Errorf("modules = %+v", mods)
	}
	sel, err := selectFC(mods, 2, nil)
	if err != nil || len(sel) != 1 || sel[0].Module != "example.com/b@v1.2.0" {
		t.Errorf("batch 2 = %+v, %v", sel, err)
	}
	if _, err := selectFC(mods, 1, []string{"example.com/b"}); err == nil {
		t.Error("-only of a module of another batch accepted")
	}
	for _, bad := range []string{
		"modules:\n  - module: example.com/a\n    batch: 1\n",
		"modules:\n  - module: example.com/a@v1\n",
		"modules:\n  - module: example.com/a@v1\n    batch: 1\n    pattern: ./...\n",
		"modules:\n  - module: example.com/a@v1\n    batch: 1\n  - module: example.com/a@v1\n    batch: 2\n",
	} {
		if _, err := parseFirstContact("x.yaml", []byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestFirstContactFileParses keeps corpus/firstcontact.yaml valid, and out
// of the case files the default mode reads.
func TestFirstContactFileParses(t *testing.T) {
	repo, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repo, "corpus", "firstcontact.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := parseFirstContact("firstcontact.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := selectFC(mods, 1, nil); err != nil {
		t.Error(err)
	}
	for _, f := range caseFiles(repo) {
		if strings.HasPrefix(filepath.Base(f), "firstcontact") {
			t.Errorf("case files include %s", f)
		}
	}
}

// TestBrokenPackages reads the packages out of a load failure as the tool
// prints it: a type error in a dependency (by its folder) and a cgo
// failure (by its "# pkg" line); a file of no listed folder is ignored.
func TestBrokenPackages(t *testing.T) {
	stderr := `gatesift-vet: cannot analyze, the packages do not load:
	/mod/golang.org/x/tools@v0.21.1/internal/tokeninternal/tokeninternal.go:64:9: invalid array length -delta * delta
	-: # example.com/olm
/mod/example.com/olm@v0.15.1/account.go:4:11: fatal error: olm/olm.h: No such file or directory
	/elsewhere/x.go:1:1: not a listed folder
	-: # 
`
	byDir := map[string]string{
		"/mod/golang.org/x/tools@v0.21.1/internal/tokeninternal": "golang.org/x/tools/internal/tokeninternal",
		"/mod/example.com/olm@v0.15.1":                           "example.com/olm",
		"/src/ok":                                                "example.com/ok",
	}
	got := brokenPackages(stderr, byDir)
	if len(got) != 2 || !got["golang.org/x/tools/internal/tokeninternal"] || !got["example.com/olm"] {
		t.Errorf("broken = %v", got)
	}
}

// TestFindingsOfInventory: -inventory-only reads one finding per rule of
// each finding entry, at the entry's site, and nothing from silent ones.
func TestFindingsOfInventory(t *testing.T) {
	a := inv("job", "a.go", 7, "run", "finding", "LE1001", "LE2001")
	a.Reason = "runs on every replica"
	fs := findingsOfInventory([]InvEntry{a, inv("lock", "b.go", 3, "take", "coordinated")})
	if len(fs) != 2 || fs[0].Category != "LE1001" || fs[1].Category != "LE2001" || fs[0].File != "a.go" || fs[0].Line != 7 || fs[0].Message != a.Reason {
		t.Errorf("findings = %+v", fs)
	}
	j := join(fs, []InvEntry{a}, nil)
	if j.Findings[0].Entry != 0 || j.Findings[1].Entry != 0 {
		t.Errorf("findings not joined to their entry: %+v", j.Findings)
	}
}
