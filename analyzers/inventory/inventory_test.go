package inventory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/localsingleton"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/staticleader"
)

// testAnalyzer builds the inventory of each package as its result, the way
// a driver would after running the jobs analysis.
var testAnalyzer = &analysis.Analyzer{
	Name:       "inventorytest",
	Doc:        "builds the inventory of a package",
	Requires:   []*analysis.Analyzer{jobs.Analyzer},
	ResultType: reflect.TypeOf([]Entry(nil)),
	Run: func(pass *analysis.Pass) (any, error) {
		dir, _ := filepath.Abs("testdata/src")
		return Build(pass.Fset, pass.Pkg.Path(), pass.ResultOf[jobs.Analyzer].(*jobs.Result),
			Options{BaseDir: dir}), nil
	},
}

var loaded struct {
	once    sync.Once
	entries []Entry
	diags   map[string][]string
	failed  bool
}

// run analyses testdata/src/inv (GOPATH layout, as analysistest does) with
// the inventory and the two singleton-work rules, once per test binary:
// loading costs most of the time.
func run(t *testing.T) ([]Entry, map[string][]string) {
	t.Helper()
	loaded.once.Do(func() {
		loaded.failed = true
		loaded.entries, loaded.diags = analyse(t)
		loaded.failed = false
	})
	if loaded.failed {
		t.Fatal("the analysis of testdata failed in an earlier test")
	}
	return loaded.entries, loaded.diags
}

func analyse(t *testing.T) (entries []Entry, diags map[string][]string) {
	t.Helper()
	gopath, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  filepath.Join(gopath, "src", "inv"),
		Env:  append(os.Environ(), "GOPATH="+gopath, "GO111MODULE=off", "GOPROXY=off"),
	}
	pkgs, err := packages.Load(cfg, "inv")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%d errors loading testdata", n)
	}
	g, err := checker.Analyze([]*analysis.Analyzer{testAnalyzer, localsingleton.Analyzer, staticleader.Analyzer}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	diags = map[string][]string{} // "file:line" -> rule IDs
	for act := range g.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Fatalf("%s: %v", act.Analyzer.Name, act.Err)
		}
		if act.Analyzer == testAnalyzer {
			entries = act.Result.([]Entry)
		}
		for _, d := range act.Diagnostics {
			p := act.Package.Fset.Position(d.Pos)
			key := filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line)
			diags[key] = append(diags[key], d.Category)
		}
	}
	return entries, diags
}

var marker = regexp.MustCompile(`// inventory: (\S+)(?: (LE\d{4}))?`)

// markers returns "inv.go:line" -> "verdict rule" from the testdata comments.
func markers(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/src/inv/inv.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if m := marker.FindStringSubmatch(sc.Text()); m != nil {
			out["inv.go:"+strconv.Itoa(line)] = strings.TrimSpace(m[1] + " " + m[2])
		}
	}
	return out
}

func TestVerdictsMatchMarkersAndRules(t *testing.T) {
	entries, diags := run(t)
	want := markers(t)
	if len(want) < 5 {
		t.Fatalf("only %d markers in testdata", len(want))
	}
	got := map[string]string{}
	for _, e := range entries {
		key := filepath.Base(e.Site.File) + ":" + strconv.Itoa(e.Site.Line)
		got[key] = strings.TrimSpace(string(e.Verdict) + " " + e.Rule)
		t.Logf("%s: %s %s (%s)", key, e.Verdict, e.Rule, e.Reason)
		if e.Reason == "" {
			t.Errorf("%s: no reason", key)
		}
		// The inventory must agree with the rules that report singleton work.
		var reported []string
		for _, id := range diags[key] {
			if id == "LE1001" || id == "LE1002" {
				reported = append(reported, id)
			}
		}
		switch {
		case e.Verdict == Finding && (len(reported) != 1 || reported[0] != e.Rule):
			t.Errorf("%s: inventory says %s %s, the rules reported %v", key, e.Verdict, e.Rule, reported)
		case e.Verdict != Finding && len(reported) > 0:
			t.Errorf("%s: inventory says %s, the rules reported %v", key, e.Verdict, reported)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts by site:\n got %v\nwant %v", got, want)
	}
}

func TestEntryDetails(t *testing.T) {
	entries, _ := run(t)
	var billing, coordinated *Entry
	for i := range entries {
		switch entries[i].Function {
		case "billing":
			billing = &entries[i]
		case "coordinated":
			coordinated = &entries[i]
		}
	}
	if billing == nil || coordinated == nil {
		t.Fatalf("missing billing or coordinated entry in %+v", entries)
	}
	if billing.Site.File != "inv/inv.go" {
		t.Errorf("site file %q, want inv/inv.go (relative to BaseDir)", billing.Site.File)
	}
	if billing.Schedule != "every 1m0s" || billing.Scheduler != "time.Tick" || billing.Package != "inv" {
		t.Errorf("billing: scheduler %q schedule %q package %q", billing.Scheduler, billing.Schedule, billing.Package)
	}
	if want := []string{"table accounts", "table invoices"}; !reflect.DeepEqual(billing.Resources, want) {
		t.Errorf("billing resources %v, want %v", billing.Resources, want)
	}
	if coordinated.Coordinator == "" || coordinated.CoordinatorAt == nil || coordinated.CoordinatorAt.Line <= coordinated.Site.Line {
		t.Errorf("coordinated: coordinator %q at %v, want one after the site", coordinated.Coordinator, coordinated.CoordinatorAt)
	}

	// The JSON form is the report format: check the field names a consumer
	// reads and that it round-trips.
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"site":{"file":"inv/inv.go"`, `"verdict":"finding"`, `"rule":"LE1001"`, `"coordinator":`, `"resources":["table accounts","table invoices"]`} {
		if !bytes.Contains(data, []byte(field)) {
			t.Errorf("JSON lacks %s:\n%s", field, data)
		}
	}
	var back []Entry
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, entries) {
		t.Errorf("JSON does not round-trip (err %v)", err)
	}
}

func TestMarkdown(t *testing.T) {
	entries := []Entry{
		{Kind: KindJob, Site: Position{"a.go", 3, 2}, Scheduler: "time.Tick", Verdict: Coordinated, Coordinator: "elector.Run", Reason: "coordinated by elector.Run"},
		{Site: Position{"a.go", 9, 2}, Scheduler: "cron.AddFunc", Schedule: `cron "@daily"`, Resources: []string{"table a|b"},
			Verdict: Finding, Rule: "LE1001", Reason: "runs on every replica, guarded by nothing"},
	}
	var b strings.Builder
	if err := Markdown(&b, entries); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, rule and 2 rows:\n%s", b.String())
	}
	if !strings.Contains(lines[2], "`a.go:9:2`") || !strings.Contains(lines[2], "finding LE1001") {
		t.Errorf("findings must come first: %s", lines[2])
	}
	if !strings.Contains(lines[2], `table a\|b`) {
		t.Errorf("a | in a cell must be escaped: %s", lines[2])
	}
	if strings.Count(lines[3], " | ") != 6 || !strings.Contains(lines[3], "| - |") {
		t.Errorf("row of the coordinated job: %s", lines[3])
	}
}

func TestGroupByBinary(t *testing.T) {
	entries := []Entry{
		{Kind: KindJob, Package: "m/lib", Site: Position{"lib/a.go", 3, 1}, Verdict: Finding, Rule: "LE1001", Rules: []string{"LE1001"}},
		{Kind: KindLock, Package: "m/cmd/api", Site: Position{"cmd/api/main.go", 9, 1}, Verdict: Coordinated},
		{Kind: KindElection, Package: "m/orphan", Site: Position{"orphan/o.go", 1, 1}, Verdict: Coordinated},
	}
	programs := []Program{
		{Name: "worker", Package: "m/cmd/worker", Reaches: map[string]bool{"m/cmd/worker": true, "m/lib": true}},
		{Name: "api", Package: "m/cmd/api", Reaches: map[string]bool{"m/cmd/api": true, "m/lib": true}},
	}
	r := Group(entries, programs, "gatesift-vet", "v9.9.9")
	if len(r.Binaries) != 2 || r.Binaries[0].Name != "api" || r.Binaries[1].Name != "worker" {
		t.Fatalf("binaries %+v, want api then worker", r.Binaries)
	}
	if n := len(r.Binaries[0].Entries); n != 2 {
		t.Errorf("api: %d entries, want its own lock and the library job", n)
	}
	if n := len(r.Binaries[1].Entries); n != 1 || r.Binaries[1].Entries[0].Package != "m/lib" {
		t.Errorf("worker: entries %+v, want the library job only", r.Binaries[1].Entries)
	}
	if len(r.Library) != 1 || r.Library[0].Package != "m/orphan" {
		t.Errorf("library %+v, want the orphan election", r.Library)
	}
	// The job reached by two binaries counts once.
	if r.Summary != (Summary{Finding: 1, Coordinated: 2}) {
		t.Errorf("summary %+v", r.Summary)
	}
	var b strings.Builder
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"gatesift-vet v9.9.9: 1 finding(s), 0 per-replica, 2 coordinated.",
		"## Binary `api` (`m/cmd/api`)", "## Binary `worker` (`m/cmd/worker`)", "## Library"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "`lib/a.go:3:1`") != 2 {
		t.Errorf("the library job must be listed under both binaries:\n%s", md)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"schema":1`, `"version":"v9.9.9"`, `"summary":{"finding":1,"per-replica":0,"coordinated":2}`,
		`"binaries":[{"name":"api","package":"m/cmd/api","entries":[`, `"library":[{"kind":"election"`} {
		if !bytes.Contains(data, []byte(field)) {
			t.Errorf("JSON lacks %s:\n%s", field, data)
		}
	}
}

// TestUnknownEffectsAreListed: a write the analysis cannot read is no
// finding, but the inventory shows it as unknown, with the reason.
func TestUnknownEffectsAreListed(t *testing.T) {
	entries, _ := run(t)
	for _, e := range entries {
		if e.Function != "opaque" {
			continue
		}
		if len(e.Effects) != 1 || !e.Effects[0].Unknown {
			t.Errorf("opaque effects %+v, want one unknown write", e.Effects)
		}
		if !strings.Contains(e.Reason, "cannot be read") {
			t.Errorf("opaque reason %q does not say its writes cannot be read", e.Reason)
		}
		return
	}
	t.Fatal("no inventory entry for opaque")
}

// An ownership test names the partitioning as the coordinator, at the if.
func TestOwnershipEntry(t *testing.T) {
	entries, _ := run(t)
	for _, e := range entries {
		if e.Function != "partitioned" {
			continue
		}
		if e.Verdict != Coordinated || !strings.HasPrefix(e.Coordinator, "partitioned by ownership: the lookup Owner() compared with os.Hostname()") {
			t.Errorf("partitioned: %s, coordinator %q", e.Verdict, e.Coordinator)
		}
		if e.CoordinatorAt == nil || e.CoordinatorAt.Line != e.Site.Line+2 {
			t.Errorf("partitioned: coordinator at %v, want the if two lines after the site %v", e.CoordinatorAt, e.Site)
		}
		return
	}
	t.Fatal("no entry for partitioned")
}
