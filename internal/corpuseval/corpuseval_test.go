package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseCasesFile(t *testing.T) {
	cs, err := readCaseFiles([]string{"testdata/cases.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("got %d cases, want 2", len(cs))
	}
	pos, neg := cs[0], cs[1]
	if pos.ID != "pos" || pos.Source != "testdata/cases.yaml:2" || !reflect.DeepEqual(pos.Lines, []int{10, 20}) ||
		!reflect.DeepEqual(pos.Expect, []string{"LE1001", "LE2001"}) || !pos.Positive() {
		t.Errorf("pos = %+v", pos)
	}
	if pos.ModulePath() != "example.com/mod" || pos.Version() != "v1.0.0" {
		t.Errorf("module split = %q %q", pos.ModulePath(), pos.Version())
	}
	if strings.TrimSpace(pos.Notes) != "A ticker that writes." {
		t.Errorf("notes = %q", pos.Notes)
	}
	// "expect: []" must decode as a deliberate true negative, not a missing key,
	// and a trailing slash on a folder is dropped so prefix matching works.
	if neg.Expect == nil || neg.Positive() || neg.File != "lock" || neg.Source != "testdata/cases.yaml:11" {
		t.Errorf("neg = %+v", neg)
	}
}

func TestParseCasesErrors(t *testing.T) {
	const head = "- id: a\n  module: example.com/m@v1.0.0\n  package: example.com/m\n  file: a.go\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown field with line", head + "  lines: [1, 2]\n  expect: []\n  severity: high\n",
			"x.yaml: yaml: unmarshal errors:\n  line 7: field severity not found"},
		{"missing expect", head + "  lines: [1, 2]\n", `x.yaml:1: case "a": expect is required`},
		{"bad rule id", head + "  lines: [1, 2]\n  expect: [LE10]\n", `expect holds "LE10"`},
		{"reversed lines", head + "  lines: [9, 2]\n  expect: []\n", "lines must be [first, last]"},
		{"one line", head + "  lines: [9]\n  expect: []\n", "lines must be [first, last]"},
		{"no version", strings.Replace(head, "@v1.0.0", "", 1) + "  lines: [1, 2]\n  expect: []\n", "module must be module@version"},
		{"package outside module", strings.Replace(head, "package: example.com/m", "package: example.com/other", 1) + "  lines: [1, 2]\n  expect: []\n", "is not inside module"},
		{"escaping file", strings.Replace(head, "file: a.go", "file: ../a.go", 1) + "  lines: [1, 2]\n  expect: []\n", "clean slash path"},
		{"not a list", "id: a\n", "x.yaml: yaml: unmarshal errors"},
		{"second case at line 7", head + "  lines: [1, 2]\n  expect: []\n" + "- id: b\n  module: nope\n", `x.yaml:7: case "b": module must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCases("x.yaml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestDuplicateIDAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "a.yaml")
	data, err := os.ReadFile("testdata/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(one, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = readCaseFiles([]string{one, one})
	if err == nil || !strings.Contains(err.Error(), `case "pos" already defined at `+one+":2") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmptyCasesFile(t *testing.T) {
	cs, err := parseCases("empty.yaml", []byte("# nothing yet\n"))
	if err != nil || len(cs) != 0 {
		t.Fatalf("got %v, %v", cs, err)
	}
}

// The real corpus must always parse: a typo there would otherwise only show
// up in a long networked run.
func TestRealCorpusParses(t *testing.T) {
	files := caseFiles(filepath.Join("..", ".."))
	if len(files) == 0 {
		t.Skip("no corpus files")
	}
	cs, err := readCaseFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no cases")
	}
}

func TestInRange(t *testing.T) {
	file := Case{File: "internal/cli/scheduler.go", Lines: []int{15, 57}}
	folder := Case{File: "services/cron", Lines: []int{1, 200}}
	tests := []struct {
		c    Case
		f    Finding
		want bool
	}{
		{file, Finding{File: "internal/cli/scheduler.go", Line: 15}, true},  // first line inclusive
		{file, Finding{File: "internal/cli/scheduler.go", Line: 57}, true},  // last line inclusive
		{file, Finding{File: "internal/cli/scheduler.go", Line: 14}, false}, // before
		{file, Finding{File: "internal/cli/scheduler.go", Line: 58}, false}, // after
		{file, Finding{File: "internal/cli/daemon.go", Line: 20}, false},    // other file
		{file, Finding{File: "", Line: 20}, false},                          // outside the module
		{folder, Finding{File: "services/cron/tasks.go", Line: 200}, true},
		{folder, Finding{File: "services/cron/sub/x.go", Line: 1}, true}, // any depth
		{folder, Finding{File: "services/cron/tasks.go", Line: 201}, false},
		{folder, Finding{File: "services/cronjobs/x.go", Line: 5}, false}, // prefix is not a folder
		{folder, Finding{File: "services/cron", Line: 5}, true},
		{folder, Finding{File: "services/cron/tasks.go", Line: 0}, false}, // no line: cannot be placed
	}
	for _, tt := range tests {
		if got := inRange(tt.c, tt.f); got != tt.want {
			t.Errorf("inRange(%s %v, %s:%d) = %v, want %v", tt.c.File, tt.c.Lines, tt.f.File, tt.f.Line, got, tt.want)
		}
	}
}

func mkCase(id, file string, lo, hi int, expect ...string) Case {
	if expect == nil {
		expect = []string{}
	}
	return Case{ID: id, Module: "example.com/m@v1.0.0", Package: "example.com/m", File: file, Lines: []int{lo, hi}, Expect: expect}
}

func TestScoring(t *testing.T) {
	findings := []Finding{
		{File: "a.go", Line: 10, Category: "LE1001"},
		{File: "a.go", Line: 11, Category: "LE3003"}, // in range of a positive case, not labeled there
		{File: "b.go", Line: 5, Category: "LE3001"},
		{File: "d.go", Line: 7, Category: "LE1001"},
		{File: "d.go", Line: 8, Category: "LE1001"}, // second finding, same case: counted once
		{File: "z.go", Line: 1, Category: "LE4001"}, // outside every range
	}
	cases := []Case{
		mkCase("found", "a.go", 1, 20, "LE1001", "LE2001"),
		mkCase("missed", "b.go", 1, 20, "LE3002"), // LE3001 fired, but not expected
		mkCase("silent", "c.go", 1, 20),
		mkCase("fp", "d.go", 1, 20),
		mkCase("err", "a.go", 1, 20, "LE1001"),
	}
	var results []CaseResult
	for _, c := range cases {
		runErr := ""
		if c.ID == "err" {
			runErr = "tool crashed"
		}
		results = append(results, scoreCase(c, findings, runErr))
	}
	want := []Outcome{Found, Missed, Silent, FalsePositive, Errored}
	for i, r := range results {
		if r.Outcome != want[i] {
			t.Errorf("case %s: outcome %q, want %q", r.Case.ID, r.Outcome, want[i])
		}
	}
	if n := len(results[3].InRange); n != 2 {
		t.Errorf("fp case has %d findings in range, want 2", n)
	}

	tot := totals(results)
	if tot.Positive != 2 || tot.Found != 1 || tot.Missed != 1 || tot.Negative != 2 || tot.Silent != 1 ||
		tot.FalsePositives != 1 || tot.Errors != 1 || *tot.Recall != 0.5 || *tot.Precision != 0.5 {
		t.Errorf("totals = %+v recall %v precision %v", tot, *tot.Recall, *tot.Precision)
	}

	got := map[string]RuleScore{}
	for _, s := range scoreRules(results) {
		got[s.Rule] = s
	}
	check := func(rule string, labeled, found, fp, unlabeled int, recall, precision float64) {
		t.Helper()
		s, ok := got[rule]
		if !ok {
			t.Fatalf("no score for %s", rule)
		}
		if s.Labeled != labeled || s.Found != found || s.FalsePositives != fp || s.Unlabeled != unlabeled {
			t.Errorf("%s = %+v", rule, s)
		}
		eq := func(p *float64, v float64) bool { return (p == nil && v < 0) || (p != nil && *p == v) }
		if !eq(s.Recall, recall) || !eq(s.Precision, precision) {
			t.Errorf("%s recall %v precision %v, want %v %v", rule, s.Recall, s.Precision, recall, precision)
		}
	}
	// LE1001: labeled once (the errored case is not scored), found once, one FP case.
	check("LE1001", 1, 1, 1, 0, 1, 0.5)
	check("LE2001", 1, 0, 0, 0, 0, -1)  // never fired: precision undefined
	check("LE3002", 1, 0, 0, 0, 0, -1)  // missed
	check("LE3001", 0, 0, 0, 1, -1, -1) // fired only where not labeled
	check("LE3003", 0, 0, 0, 1, -1, -1) // same
	if _, ok := got["LE4001"]; ok {
		t.Error("a finding outside every range must not be scored")
	}

	out := outsideRanges("example.com/m@v1.0.0", findings, cases)
	if len(out) != 1 || out[0].File != "z.go" {
		t.Errorf("outside = %+v", out)
	}
	// Ranges of another module version do not cover the finding.
	if n := len(outsideRanges("example.com/m@v2.0.0", findings, cases)); n != len(findings) {
		t.Errorf("other version: %d outside, want %d", n, len(findings))
	}
}

func TestParseVetJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/vet.json")
	if err != nil {
		t.Fatal(err)
	}
	root := "/tmp/w/src/example.com!mod@v1.0.0"
	fs, aerrs, err := parseVetJSON(data, root)
	if err != nil {
		t.Fatal(err)
	}
	// The test variant repeats the same diagnostic: kept once.
	if len(fs) != 3 {
		t.Fatalf("got %d findings, want 3: %+v", len(fs), fs)
	}
	// Sorted by file: "" (outside the module) first, then lock/, then sched/.
	dep, lock, sched := fs[0], fs[1], fs[2]
	if dep.File != "" || dep.Line != 7 || dep.Category != "LE3001" {
		t.Errorf("dependency finding = %+v", dep)
	}
	if lock.File != "lock/lock.go" || lock.Line != 40 || lock.Col != 0 || lock.Package != "example.com/mod/lock" {
		t.Errorf("relative finding = %+v", lock)
	}
	if sched.File != "sched/run.go" || sched.Line != 12 || sched.Col != 3 || sched.Analyzer != "localsingleton" ||
		sched.Category != "LE1001" || len(sched.Related) != 1 || sched.Related[0].Message != "effect: insert" {
		t.Errorf("sched finding = %+v", sched)
	}
	if len(aerrs) != 1 || aerrs[0].Analyzer != "unsafeunlock" || aerrs[0].Error != "internal error: boom" {
		t.Errorf("analyzer errors = %+v", aerrs)
	}
}

func TestParseVetJSONRejectsGarbage(t *testing.T) {
	for _, in := range []string{
		"load error: no Go files",
		`{"p": {"a": 42}}`,
		`{"p": {"a": [{"posn": 3}]}}`,
	} {
		if _, _, err := parseVetJSON([]byte(in), "/r"); err == nil {
			t.Errorf("parseVetJSON(%q) succeeded", in)
		}
	}
	fs, _, err := parseVetJSON([]byte("{}\n"), "/r")
	if err != nil || len(fs) != 0 {
		t.Errorf("empty tree: %v %v", fs, err)
	}
}

func TestSplitPosn(t *testing.T) {
	tests := []struct {
		in        string
		file      string
		line, col int
	}{
		{"/a/b.go:12:3", "/a/b.go", 12, 3},
		{"/a/b.go:12", "/a/b.go", 12, 0},
		{"/a/b.go", "/a/b.go", 0, 0},
		{"C:/x/b.go:4:5", "C:/x/b.go", 4, 5},
		{"", "", 0, 0},
	}
	for _, tt := range tests {
		f, l, c := splitPosn(tt.in)
		if f != tt.file || l != tt.line || c != tt.col {
			t.Errorf("splitPosn(%q) = %q %d %d", tt.in, f, l, c)
		}
	}
}

func TestGroupByModule(t *testing.T) {
	a := mkCase("a", "x.go", 1, 2)
	b := mkCase("b", "y.go", 1, 2)
	b.Package = "example.com/m/sub"
	c := mkCase("c", "z.go", 1, 2)
	c.Module = "example.com/m@v2.0.0"
	d := mkCase("d", "w.go", 1, 2) // same package as a: analyzed once
	gs := groupByModule([]Case{a, b, c, d})
	if len(gs) != 2 || gs[0].module != "example.com/m@v1.0.0" ||
		!reflect.DeepEqual(gs[0].packages, []string{"example.com/m", "example.com/m/sub"}) || len(gs[0].cases) != 3 {
		t.Errorf("groups = %+v", gs)
	}
	if _, err := selectCases([]Case{a}, []string{"nope"}); err == nil {
		t.Error("selecting an unknown ID must fail")
	}
}
