package inventory

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

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
	byPkg := map[*packages.Package][]Run{}
	var order []*packages.Package
	for _, act := range graph.Roots {
		if _, ok := byPkg[act.Package]; !ok {
			order = append(order, act.Package)
		}
		byPkg[act.Package] = append(byPkg[act.Package], Run{act.Analyzer, act.Result, act.Diagnostics, act.Err})
	}
	var entries []Entry
	for _, p := range order {
		pkg := Package{Fset: p.Fset, PkgPath: p.PkgPath, GoFiles: p.GoFiles, Types: p.Types, Info: p.TypesInfo, Syntax: p.Syntax}
		entries = append(entries, FromPackage(pkg, byPkg[p], baseDir, src)...)
	}
	return entries
}

// Package is what FromPackage needs of a package: a driver that drops a
// package's syntax once analyzed calls it while the syntax is alive.
type Package struct {
	Fset    *token.FileSet
	PkgPath string
	GoFiles []string
	Types   *types.Package
	Info    *types.Info
	Syntax  []*ast.File
}

// Run is one analyzer's action on a package.
type Run struct {
	Analyzer    *analysis.Analyzer
	Result      any
	Diagnostics []analysis.Diagnostic
	Err         error
}

// FromPackage is FromGraph for one root package, given the runs of the
// root analyzers on it in the driver's order.
func FromPackage(p Package, runs []Run, baseDir string, src config.Source) []Entry {
	var (
		jobsRes *jobs.Result
		diags   []Diagnostic
		ran     = map[string]bool{}
	)
	for _, act := range runs {
		if act.Err != nil {
			continue
		}
		if act.Analyzer.Name == jobs.Analyzer.Name {
			jobsRes, _ = act.Result.(*jobs.Result)
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
		ran[r.ID] = out.Ran
		for _, d := range act.Diagnostics {
			diags = append(diags, diagnosticOf(d))
		}
		for _, s := range out.Suppressed {
			diags = append(diags, diagnosticOf(s.Diagnostic))
		}
	}
	if jobsRes == nil || len(p.GoFiles) == 0 {
		return nil
	}
	settings, err := src.ForDir(filepath.Dir(p.GoFiles[0]))
	if err != nil {
		return nil // every rule reports it already
	}
	site := Source{
		Fset: p.Fset, Path: p.PkgPath, Types: p.Types, Info: p.Info,
		Files: ruleFiles(p, settings), KB: settings.Knowledge, Jobs: jobsRes,
		Findings: diags, Ran: ran,
	}
	return Of(site, Options{Strict: settings.Strict(), BaseDir: baseDir})
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
func ruleFiles(p Package, s *config.Settings) []*ast.File {
	var out []*ast.File
	for _, f := range p.Syntax {
		if rule.Skips(p.Fset, f, p.PkgPath, s.Config) {
			continue
		}
		out = append(out, f)
	}
	return out
}
