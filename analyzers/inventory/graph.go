package inventory

import (
	"go/ast"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/config"
	"github.com/gatesift/gatesift-vet/signals"
)

// FromGraph lists the jobs, locks and leader elections of the root packages
// of a checker run, with the verdicts the rules reach: jobs as LE1001 and
// LE1002 decide (plus LE2001's reports on them), locks and elections from the diagnostics the LE3xxx and
// LE4xxx rules produced in the same run (suppressed ones included), so the
// inventory and the findings cannot disagree. jobs.Analyzer must be a root
// of the run (the checker keeps only root results); packages without its
// result are skipped. Positions are relative to baseDir when below it. src
// is the configuration the run's analyzers were bound to (settings.Bind);
// jobs.Analyzer is recognized by name, so a bound copy counts.
func FromGraph(graph *checker.Graph, baseDir string, src config.Source) []Entry {
	type pkgActs struct {
		jobs  *jobs.Result
		diags []Diagnostic
		ran   map[string]bool
	}
	byPkg := map[*packages.Package]*pkgActs{}
	var order []*packages.Package
	for _, act := range graph.Roots {
		pa := byPkg[act.Package]
		if pa == nil {
			pa = &pkgActs{ran: map[string]bool{}}
			byPkg[act.Package] = pa
			order = append(order, act.Package)
		}
		if act.Err != nil {
			continue
		}
		if act.Analyzer.Name == jobs.Analyzer.Name {
			pa.jobs, _ = act.Result.(*jobs.Result)
			continue
		}
		out, ok := act.Result.(*rule.Outcome)
		if !ok || out == nil {
			continue
		}
		r, ok := signals.Lookup(act.Analyzer.Name)
		if !ok {
			continue
		}
		pa.ran[r.ID] = out.Ran
		for _, d := range act.Diagnostics {
			pa.diags = append(pa.diags, diagnosticOf(d))
		}
		for _, s := range out.Suppressed {
			pa.diags = append(pa.diags, diagnosticOf(s.Diagnostic))
		}
	}
	var entries []Entry
	for _, p := range order {
		pa := byPkg[p]
		if pa.jobs == nil || len(p.GoFiles) == 0 {
			continue
		}
		settings, err := src.ForDir(filepath.Dir(p.GoFiles[0]))
		if err != nil {
			continue // every rule reports it already
		}
		src := Source{
			Fset: p.Fset, Path: p.PkgPath, Types: p.Types, Info: p.TypesInfo,
			Files: ruleFiles(p, settings), KB: settings.Knowledge, Jobs: pa.jobs,
			Findings: pa.diags, Ran: pa.ran,
		}
		entries = append(entries, Of(src, Options{Strict: settings.Strict(), BaseDir: baseDir})...)
	}
	return entries
}

func diagnosticOf(d analysis.Diagnostic) Diagnostic {
	out := Diagnostic{Rule: d.Category, Pos: d.Pos}
	for _, r := range d.Related {
		out.Related = append(out.Related, r.Pos)
	}
	return out
}

// ruleFiles are the files the rules look at (rule.Pass.Files): no _test.go
// or generated files unless the configuration opts in.
func ruleFiles(p *packages.Package, s *config.Settings) []*ast.File {
	var out []*ast.File
	for _, f := range p.Syntax {
		name := p.Fset.File(f.Pos()).Name()
		if strings.HasSuffix(name, "_test.go") && !s.Config.Tests || ast.IsGenerated(f) && !s.Config.Generated {
			continue
		}
		out = append(out, f)
	}
	return out
}
