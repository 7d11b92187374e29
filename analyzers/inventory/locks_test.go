package inventory

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/leadershiploss"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/leasetiming"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/lockexpiry"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/lockrenewal"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/unsafeunlock"
	"github.com/gatesift/gatesift-vet/config"
)

// TestLocksAndElections runs the lock and leadership rules with the jobs
// analysis on testdata/src/invlocks (library stubs come from the
// repository's shared testdata tree) and checks every marked site's kind,
// verdict and rules, and that every LE3xxx/LE4xxx report appears in the
// inventory.
func TestLocksAndElections(t *testing.T) {
	own, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	stubs, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  filepath.Join(own, "src", "invlocks"),
		Env:  append(os.Environ(), "GOPATH="+own+string(os.PathListSeparator)+stubs, "GO111MODULE=off", "GOPROXY=off"),
	}
	pkgs, err := packages.Load(cfg, "invlocks")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%d errors loading testdata", n)
	}
	rules := []*analysis.Analyzer{lockexpiry.Analyzer, unsafeunlock.Analyzer, lockrenewal.Analyzer, leadershiploss.Analyzer, leasetiming.Analyzer}
	g, err := checker.Analyze(append([]*analysis.Analyzer{jobs.Analyzer}, rules...), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := FromGraph(g, filepath.Join(own, "src"), config.Source{})

	got := map[string]string{}
	for _, e := range entries {
		key := "invlocks.go:" + strconv.Itoa(e.Site.Line)
		got[key] = strings.TrimSpace(string(e.Kind) + " " + string(e.Verdict) + " " + strings.Join(e.Rules, " "))
		t.Logf("%s: %s %s %s key=%q lease=%q (%s)", key, e.Kind, e.Scheduler, e.Verdict, e.Key, e.Lease, e.Reason)
		if e.Site.File != "invlocks/invlocks.go" {
			t.Errorf("%s: file %q, want invlocks/invlocks.go", key, e.Site.File)
		}
	}
	want := map[string]string{}
	marker := regexp.MustCompile(`// inventory: (.*)$`)
	f, err := os.Open(filepath.Join(own, "src", "invlocks", "invlocks.go"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if m := marker.FindStringSubmatch(sc.Text()); m != nil {
			want["invlocks.go:"+strconv.Itoa(line)] = m[1]
		}
	}
	if len(want) < 6 {
		t.Fatalf("only %d markers", len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected entry %q", k, v)
		}
	}

	// Every lock or leadership report is some entry's finding.
	for act := range g.All() {
		if !act.IsRoot || !slices.Contains(rules, act.Analyzer) {
			continue
		}
		for _, d := range act.Diagnostics {
			if !slices.ContainsFunc(entries, func(e Entry) bool { return slices.Contains(e.Rules, d.Category) }) {
				t.Errorf("%s at %v is in no entry", d.Category, act.Package.Fset.Position(d.Pos))
			}
		}
	}

	// Keys and timings read from constants.
	details := map[string][2]string{}
	for _, e := range entries {
		details[e.Scheduler] = [2]string{e.Key, e.Lease}
	}
	for api, w := range map[string][2]string{
		"elector.Candidate.Run":         {"reports", "lease 20s, renew every 5s, retry 2s"},
		"leaderelection.RunOrDie":       {"", "lease 10s, renew deadline 15s, retry 2s"},
		"concurrency.Election.Campaign": {"/leader/compactor", "session TTL 10s"},
		"redislock.Client.Obtain":       {"lock:worker", "TTL 10s"},
	} {
		if details[api] != w {
			t.Errorf("%s: key and lease %q, want %q", api, details[api], w)
		}
	}
}

// TestUncheckedSite: a lock whose rules did not all run is still
// coordinated, but its reason says which rule was off.
func TestUncheckedSite(t *testing.T) {
	v, rule, rules, reason := siteVerdict(&site{kind: KindLock}, map[string]bool{"LE3001": true, "LE3002": false, "LE3004": true})
	if v != Coordinated || rule != "" || rules != nil || !strings.Contains(reason, "LE3002 did not run") || strings.Contains(reason, "LE3001 did") {
		t.Errorf("got %s %q %v %q", v, rule, rules, reason)
	}
	v, rule, rules, _ = siteVerdict(&site{kind: KindElection, rules: []string{"LE4002", "LE4001"}}, nil)
	if v != Finding || rule != "LE4001" || !slices.Equal(rules, []string{"LE4001", "LE4002"}) {
		t.Errorf("got %s %q %v", v, rule, rules)
	}
}
