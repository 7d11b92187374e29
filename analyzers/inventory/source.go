package inventory

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/signals"
)

// Source is what the inventory of one package is built from: the package,
// the jobs analysis, and the findings the lock and leadership rules
// reported on it.
type Source struct {
	Fset  *token.FileSet
	Path  string
	Types *types.Package
	Info  *types.Info
	// Files are the files the rules look at (without _test.go and
	// generated files unless the configuration opts in).
	Files []*ast.File
	KB    *signals.Knowledge
	Jobs  *jobs.Result
	// Findings are the diagnostics of the LE3xxx and LE4xxx rules on the
	// package, suppressed ones included: the inventory describes the code.
	Findings []Diagnostic
	// Ran says which rules ran on the package; a lock or election whose
	// rules did not run is said to be unchecked by them.
	Ran map[string]bool
}

// Diagnostic is one rule report, reduced to what matching needs.
type Diagnostic struct {
	Rule    string
	Pos     token.Pos
	Related []token.Pos
}

// lockRules and electionRules are the rules whose reports decide the
// verdict of locks and elections.
var (
	lockRules     = []string{"LE3001", "LE3002", "LE3004"}
	electionRules = []string{"LE4001", "LE4002"}
)

// ruleKind is the kind of entry a rule's report belongs to.
func ruleKind(id string) (Kind, bool) {
	switch {
	case slices.Contains(lockRules, id):
		return KindLock, true
	case slices.Contains(electionRules, id):
		return KindElection, true
	}
	return "", false
}

// site is a lock or election before its verdict.
type site struct {
	kind  Kind
	node  ast.Node // the call
	decl  *ast.FuncDecl
	entry Entry
	rules []string
}

// Of returns the inventory of one package: its jobs (verdicts as LE1001
// and LE1002 decide), its lock acquisitions and its leader elections
// (verdicts from the LE3001, LE3002, LE3004, LE4001 and LE4002 reports on
// them), sorted by position.
func Of(src Source, opts Options) []Entry {
	out := Build(src.Fset, src.Path, src.Jobs, opts)
	pos := positioner(src.Fset, opts.BaseDir)
	markCompeting(src.Findings, out, pos)
	if src.Info == nil || src.KB == nil {
		return out
	}
	sites := append(locks(src), elections(src)...)
	sites = attach(src, sites)
	for _, s := range sites {
		e := s.entry
		e.Kind = s.kind
		e.Package = src.Path
		e.Site = pos(s.node.Pos())
		if s.decl != nil {
			e.Function = s.decl.Name.Name
		}
		e.Verdict, e.Rule, e.Rules, e.Reason = siteVerdict(s, src.Ran)
		out = append(out, e)
	}
	slices.SortStableFunc(out, compareSites)
	return out
}

// markCompeting adds LE2001 to the jobs it reports. The report sits on one
// scheduler site and names the other scheduler as related information, so
// both jobs carry it: each is half of the race. A job LE1001 and LE1002
// leave alone becomes a finding by LE2001.
func markCompeting(findings []Diagnostic, jobs []Entry, pos func(token.Pos) Position) {
	const id = "LE2001"
	title := id
	if r, ok := signals.Lookup(id); ok {
		title = id + ": " + r.Title
	}
	for _, f := range findings {
		if f.Rule != id {
			continue
		}
		at := map[Position]bool{pos(f.Pos): true}
		for _, p := range f.Related {
			at[pos(p)] = true
		}
		for i := range jobs {
			e := &jobs[i]
			if e.Kind != KindJob || !at[e.Site] || slices.Contains(e.Rules, id) {
				continue
			}
			if e.Verdict != Finding {
				e.Verdict, e.Rule, e.Reason = Finding, id, title
			} else {
				e.Reason += "; " + title
			}
			e.Rules = slices.Sorted(slices.Values(append(e.Rules, id)))
		}
	}
}

func compareSites(a, b Entry) int {
	return cmp.Or(cmp.Compare(a.Site.File, b.Site.File), cmp.Compare(a.Site.Line, b.Site.Line),
		cmp.Compare(a.Site.Column, b.Site.Column), cmp.Compare(a.Kind, b.Kind))
}

func positioner(fset *token.FileSet, base string) func(token.Pos) Position {
	return func(p token.Pos) Position {
		pp := fset.Position(p)
		file := pp.Filename
		if base != "" {
			if rel, err := filepath.Rel(base, file); err == nil && !strings.HasPrefix(rel, "..") {
				file = filepath.ToSlash(rel)
			}
		}
		return Position{File: file, Line: pp.Line, Column: pp.Column}
	}
}

// attach gives each lock and election the rules that reported it: a
// report on the call (or pointing at it as related information) first,
// else one in the same function on a site of the rule's kind. A report
// that matches no site becomes a site of its own, so the inventory never
// shows fewer findings than the rules report.
func attach(src Source, sites []*site) []*site {
	within := func(s *site, p token.Pos) bool { return s.node.Pos() <= p && p <= s.node.End() }
	for _, f := range src.Findings {
		kind, ok := ruleKind(f.Rule)
		if !ok {
			continue
		}
		var hit *site
		for _, sameKind := range []bool{true, false} {
			for _, s := range sites {
				if hit == nil && (s.kind == kind) == sameKind && (within(s, f.Pos) ||
					slices.ContainsFunc(f.Related, func(p token.Pos) bool { return within(s, p) })) {
					hit = s
				}
			}
		}
		if hit == nil {
			decl := enclosing(src.Files, f.Pos)
			for _, s := range sites {
				if decl != nil && s.decl == decl && s.kind == kind {
					hit = s
					break
				}
			}
		}
		if hit == nil {
			at := f.Pos
			if len(f.Related) > 0 && kind == KindLock && f.Rule != "LE3001" {
				// LE3002's discarded acquire, LE3004's handle; LE3001 is
				// reported at the acquire itself (its related information
				// is the release)
				at = f.Related[0]
			}
			hit = &site{kind: kind, node: &ast.Ident{NamePos: at}, decl: enclosing(src.Files, at)}
			hit.entry.Scheduler = "reported by " + f.Rule
			sites = append(sites, hit)
		}
		if !slices.Contains(hit.rules, f.Rule) {
			hit.rules = append(hit.rules, f.Rule)
		}
	}
	return sites
}

// siteVerdict is a finding when a rule reported the site, else coordinated:
// a lock or an election is coordination, and the rules found nothing wrong
// with it.
func siteVerdict(s *site, ran map[string]bool) (Verdict, string, []string, string) {
	if len(s.rules) > 0 {
		rules := slices.Sorted(slices.Values(s.rules))
		var why []string
		for _, id := range rules {
			if r, ok := signals.Lookup(id); ok {
				why = append(why, id+": "+r.Title)
			} else {
				why = append(why, id)
			}
		}
		return Finding, rules[0], rules, strings.Join(why, "; ")
	}
	checks := lockRules
	what := "no lock rule"
	if s.kind == KindElection {
		checks, what = electionRules, "no leadership rule"
	}
	reason := what + " (" + strings.Join(checks, ", ") + ") reports it"
	var off []string
	for _, id := range checks {
		if ran != nil && !ran[id] {
			off = append(off, id)
		}
	}
	if len(off) > 0 {
		reason += "; " + strings.Join(off, ", ") + " did not run (disabled by the configuration or -checks)"
	}
	return Coordinated, "", nil, reason
}
