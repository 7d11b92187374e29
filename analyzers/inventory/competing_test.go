package inventory

import (
	"go/token"
	"slices"
	"testing"
)

// TestMarkCompeting checks that an LE2001 report reaches both of the jobs
// it names (the site it is reported at and the related scheduler), makes a
// finding of a job the singleton rules left alone, and touches no other job.
func TestMarkCompeting(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("jobs.go", -1, 1000)
	f.SetLines([]int{0, 100, 200, 300, 400})
	at := func(line int) token.Pos { return f.LineStart(line) }
	pos := positioner(fset, "")
	jobs := []Entry{
		{Kind: KindJob, Site: pos(at(1)), Verdict: Finding, Rule: "LE1001", Rules: []string{"LE1001"}, Reason: "guarded by nothing"},
		{Kind: KindJob, Site: pos(at(2)), Verdict: Coordinated, Reason: "under a lease"},
		{Kind: KindJob, Site: pos(at(3)), Verdict: PerReplica, Reason: "per-replica"},
		{Kind: KindLock, Site: pos(at(2)), Verdict: Coordinated},
	}
	findings := []Diagnostic{
		{Rule: "LE2001", Pos: at(1), Related: []token.Pos{at(2), at(4)}},
		{Rule: "LE1001", Pos: at(3)}, // not LE2001: ignored here
	}
	markCompeting(findings, jobs, pos)

	if got := jobs[0].Rules; !slices.Equal(got, []string{"LE1001", "LE2001"}) || jobs[0].Rule != "LE1001" {
		t.Errorf("reported job: rule %s, rules %v; want LE1001 first, then LE2001", jobs[0].Rule, got)
	}
	if j := jobs[1]; j.Verdict != Finding || j.Rule != "LE2001" || !slices.Equal(j.Rules, []string{"LE2001"}) {
		t.Errorf("related job: %+v; want a finding by LE2001", j)
	}
	if j := jobs[2]; j.Verdict != PerReplica || len(j.Rules) != 0 {
		t.Errorf("unrelated job changed: %+v", j)
	}
	if j := jobs[3]; j.Verdict != Coordinated || len(j.Rules) != 0 {
		t.Errorf("a lock at the related position changed: %+v", j)
	}
	markCompeting(findings, jobs, pos) // a second report of the same pair adds nothing
	if got := jobs[0].Rules; len(got) != 2 {
		t.Errorf("rules after a repeat: %v", got)
	}
}
