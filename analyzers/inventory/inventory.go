// Package inventory turns the analysis of a package into a serialisable
// inventory of its scheduled and background work, its distributed locks and
// its leader elections: where each is, how often it runs or how long its
// lease lasts, what it does to shared state, what guards or coordinates it,
// and the verdict gatesift-vet reaches on it. It is the data behind a
// `-report=markdown|json|html` run, grouped by binary (Group): an operator
// reads it to learn which work runs once per cluster, which on every
// replica, and which is reported.
//
// The verdicts come from the rules themselves. A job's follows the
// singleton-work rules exactly (LE1001 localsingleton and LE1002
// staticleader decide from the same jobs.Job). A lock or election is a
// finding when LE3001, LE3002, LE3004 (locks) or LE4001, LE4002 (elections)
// reported it in the same run (FromGraph matches their diagnostics to the
// sites lockfacts and the knowledge base recognise), and coordinated
// otherwise. So the inventory never disagrees with the findings, except
// that an entry says "finding" whether or not a directive silences the
// rule: the inventory describes the code, not the report. A rule the
// configuration turns off reports nothing, and the entry's reason says it
// did not run.
package inventory

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/jobs"
)

// Verdict classifies a job.
type Verdict string

// The verdicts.
const (
	// Coordinated work runs under a lease, lock or claim that keeps it to
	// one replica at a time.
	Coordinated Verdict = "coordinated"
	// PerReplica work is meant to, or may safely, run on every replica:
	// declared per-replica, consuming a queue, or without effects that
	// duplicate outcomes.
	PerReplica Verdict = "per-replica"
	// Finding is singleton work with nothing that makes it safe; Rule says
	// which rule reports it.
	Finding Verdict = "finding"
)

// Position is a source position. File is relative to the Options' BaseDir
// when that is set and the file is below it, slash-separated.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// Effect is one effect of a job's work on shared state.
type Effect struct {
	Kind       string `json:"kind"`               // send, insert, update, delete, increment, write
	Resource   string `json:"resource,omitempty"` // "table charges", "redis key lock:billing"
	Idempotent bool   `json:"idempotent,omitempty"`
	Unknown    bool   `json:"unknown,omitempty"` // a write the analysis cannot read: silent unless strict
	API        string `json:"api"`               // the call with the effect
	Via        string `json:"via,omitempty"`     // the function it is reached through
	// ReadModifyWrite: the read and write calls, with positions, of an
	// increment made by reading a value and storing it back.
	ReadModifyWrite string `json:"read_modify_write,omitempty"`
}

// Entry is one job, lock or leader election.
type Entry struct {
	Kind      Kind     `json:"kind"` // job, lock or election
	Package   string   `json:"package"`
	Site      Position `json:"site"`
	Scheduler string   `json:"scheduler"`          // the scheduler or API: "time.NewTicker", "redis.SetNX", "elector.Candidate.Run"
	Schedule  string   `json:"schedule,omitempty"` // "every 1h0m0s"; empty when not constant
	// Key is a lock's key or an election's lease name or prefix, when
	// constant.
	Key string `json:"key,omitempty"`
	// Lease is a lock's expiry ("TTL 30s", "no expiry") or an election's
	// lease timing ("lease 15s, renew deadline 10s, retry 2s").
	Lease    string   `json:"lease,omitempty"`
	Function string   `json:"function,omitempty"` // the function declaring the site
	Work     string   `json:"work,omitempty"`     // "loop body", a function name
	Effects  []Effect `json:"effects,omitempty"`
	// Resources are the distinct shared resources the work writes, sorted.
	Resources []string `json:"resources,omitempty"`

	Coordinator   string    `json:"coordinator,omitempty"`
	CoordinatorAt *Position `json:"coordinator_at,omitempty"`
	Guard         string    `json:"guard,omitempty"` // a process-local guard (no effect across replicas)
	GuardAt       *Position `json:"guard_at,omitempty"`
	Designation   string    `json:"designation,omitempty"` // a static designation of one instance
	DesignationAt *Position `json:"designation_at,omitempty"`
	PerReplica    string    `json:"per_replica,omitempty"` // why the work is per-replica
	NonService    string    `json:"non_service,omitempty"` // why the work is a load-generator command's
	Consumes      bool      `json:"consumes,omitempty"`

	Verdict Verdict `json:"verdict"`
	// Rule is the rule reporting a Finding (the lowest ID when several do:
	// LE1001, LE1002, LE2001 for jobs; LE3001, LE3002, LE3004 for locks; LE4001,
	// LE4002 for elections); Rules lists them all.
	Rule   string   `json:"rule,omitempty"`
	Rules  []string `json:"rules,omitempty"`
	Reason string   `json:"reason"` // the verdict in words
}

// Kind says what an entry is.
type Kind string

// The kinds of entries.
const (
	KindJob      Kind = "job"
	KindLock     Kind = "lock"
	KindElection Kind = "election"
)

// Options adjust Build.
type Options struct {
	// Strict counts idempotent-only effects as shared, as the strict
	// profile does (config.Settings.Strict).
	Strict bool
	// BaseDir, when set, makes positions relative to it.
	BaseDir string
}

// Build returns the inventory of one package's jobs, in source order.
func Build(fset *token.FileSet, pkgPath string, res *jobs.Result, opts Options) []Entry {
	if res == nil {
		return nil
	}
	pos := func(n ast.Node) Position {
		p := fset.Position(n.Pos())
		file := p.Filename
		if opts.BaseDir != "" {
			if rel, err := filepath.Rel(opts.BaseDir, file); err == nil && !strings.HasPrefix(rel, "..") {
				file = filepath.ToSlash(rel)
			}
		}
		return Position{File: file, Line: p.Line, Column: p.Column}
	}
	at := func(n ast.Node) *Position {
		if n == nil {
			return nil
		}
		p := pos(n)
		return &p
	}
	out := make([]Entry, 0, len(res.Jobs))
	for _, j := range res.Jobs {
		e := Entry{
			Kind:          KindJob,
			Package:       pkgPath,
			Site:          pos(j.Site),
			Scheduler:     j.SiteName,
			Schedule:      j.Schedule,
			Work:          j.WorkName,
			Coordinator:   j.Coordination,
			CoordinatorAt: at(j.CoordinationNode),
			Guard:         j.Guard,
			GuardAt:       at(j.GuardNode),
			Designation:   j.Designation,
			DesignationAt: at(j.DesignationNode),
			PerReplica:    j.PerReplica,
			NonService:    j.NonService,
			Consumes:      j.Consumes,
		}
		if j.Func != nil {
			e.Function = j.Func.Name.Name
		}
		e.Effects, e.Resources = convert(j.Effects)
		e.Verdict, e.Rule, e.Reason = verdict(j, opts.Strict)
		if e.Rule != "" {
			e.Rules = []string{e.Rule}
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Site.File, b.Site.File), cmp.Compare(a.Site.Line, b.Site.Line),
			cmp.Compare(a.Site.Column, b.Site.Column))
	})
	return out
}

func convert(list []effects.Effect) ([]Effect, []string) {
	var out []Effect
	var res []string
	for _, e := range list {
		out = append(out, Effect{Kind: e.Kind, Resource: e.Resource, Idempotent: e.Idempotent, Unknown: e.Unknown, API: e.API, Via: e.Via, ReadModifyWrite: e.ReadModifyWrite})
		if e.Resource != "" && !slices.Contains(res, e.Resource) {
			res = append(res, e.Resource)
		}
	}
	slices.Sort(res)
	return out, res
}

// verdict decides as the rules do: jobs.Job.Singleton first, then LE1002
// for designated work and LE1001 for the rest.
func verdict(j *jobs.Job, strict bool) (Verdict, string, string) {
	switch {
	case j.Coordination != "":
		return Coordinated, "", j.Coordination
	case j.PerReplica != "":
		return PerReplica, "", j.PerReplica
	case j.Consumes:
		return PerReplica, "", "consumes a queue: each replica takes its own share"
	case j.NonService != "" && !strict && len(j.Shared(strict)) > 0:
		return PerReplica, "", j.NonService + "; reported only under -profile strict"
	case len(j.Shared(strict)) == 0:
		if unknownOnly(j.Effects) {
			return PerReplica, "", "its writes cannot be read (an unfolded statement, an opaque adapter): no evidence, silent unless -profile strict"
		}
		if len(j.Effects) > 0 {
			return PerReplica, "", "its effects are idempotent: replicas duplicate load, not outcomes"
		}
		return PerReplica, "", "no effect on shared state seen"
	case j.Designation != "":
		return Finding, "LE1002", "enabled by a static designation (" + j.Designation + "): no expiry, no takeover"
	case j.Guard != "":
		return Finding, "LE1001", "runs on every replica, guarded only by " + j.Guard
	default:
		return Finding, "LE1001", "runs on every replica, guarded by nothing"
	}
}

// unknownOnly: some effect is unknown and none accumulates.
func unknownOnly(list []effects.Effect) bool {
	unknown := false
	for _, e := range list {
		if e.Unknown {
			unknown = true
		} else if !e.Idempotent {
			return false
		}
	}
	return unknown
}

// Markdown writes entries as a Markdown table, one row per job, lock or
// election, findings first so a reader sees what to fix before what is fine.
func Markdown(w io.Writer, entries []Entry) error {
	rows := slices.Clone(entries)
	slices.SortStableFunc(rows, func(a, b Entry) int { return cmp.Compare(verdictRank[a.Verdict], verdictRank[b.Verdict]) })
	var b strings.Builder
	b.WriteString("| Site | Kind | Scheduler / API | Schedule / TTL | Writes | Guard / coordinator | Verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, e := range rows {
		v := string(e.Verdict)
		if len(e.Rules) > 0 {
			v += " " + strings.Join(e.Rules, ", ")
		} else if e.Rule != "" {
			v += " " + e.Rule
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s: %s |\n", e.Site, cell(string(e.Kind)), cell(e.Scheduler), cell(e.When()),
			cell(e.Writes()), cell(e.Coordination()), v, cell(e.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictRank orders findings first, then per-replica work, then
// coordinated work.
var verdictRank = map[Verdict]int{Finding: 0, PerReplica: 1, Coordinated: 2}

// When is the job's schedule, or the lock's TTL, or the election's lease
// timing.
func (e Entry) When() string { return cmp.Or(e.Schedule, e.Lease) }

// Writes names the shared resources the work writes, or the kinds of its
// effects when no resource is named.
func (e Entry) Writes() string { return Writes(e.Resources, e.Effects) }

// Writes says what a job writes: its shared resources when they are known,
// else its accumulating effects with the call they are reached through
// (what a report rests on), else the kinds of all its effects.
func Writes(resources []string, effects []Effect) string {
	if len(resources) > 0 {
		return strings.Join(resources, ", ")
	}
	var acc, kinds []string
	for _, ef := range effects {
		if !ef.Idempotent && !ef.Unknown {
			at := cmp.Or(ef.Via, ef.API)
			if d := ef.Kind + " via " + at; !slices.Contains(acc, d) {
				acc = append(acc, d)
			}
		}
		if !slices.Contains(kinds, ef.Kind) {
			kinds = append(kinds, ef.Kind)
		}
	}
	if len(acc) > 0 {
		return strings.Join(acc, ", ")
	}
	return strings.Join(kinds, ", ")
}

// Coordination is what coordinates or guards a job, or the key of a lock,
// or the lease name and work of an election.
func (e Entry) Coordination() string {
	switch e.Kind {
	case KindLock:
		if e.Key != "" {
			return "key " + strconv.Quote(e.Key)
		}
		return ""
	case KindElection:
		var parts []string
		if e.Key != "" {
			parts = append(parts, "lease "+strconv.Quote(e.Key))
		}
		if e.Work != "" {
			parts = append(parts, "runs "+e.Work)
		}
		return strings.Join(parts, ", ")
	}
	return cmp.Or(e.Coordinator, e.PerReplica, e.NonService, e.Designation, e.Guard)
}

// cell keeps a value from breaking the table.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
