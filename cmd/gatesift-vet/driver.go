package main

// The standalone driver. It replaces checker.Analyze over a LoadAllSyntax
// graph, which held the syntax, type information and analysis results of
// every package of the program (GOROOT included) until the end of the run.
// Here, as in staticcheck's runner and in go vet, packages are processed in
// dependency order and each one's syntax, types.Info and analysis results
// are dropped as soon as its own analysis is done; what stays is what its
// dependents need: its *types.Package and its facts. GOROOT packages, which
// every analyzer skips, are type-checked for their declarations only
// (IgnoreFuncBodies, no types.Info, no comments) and never analyzed.
//
// The packages' types are shared: a dependent is type-checked against the
// very *types.Package its dependency produced, so object facts keep the
// types.Object identity checker's in-memory facts have and need no
// objectpath re-keying. Fact visibility follows checker's inheritance rule
// exactly (see factView), so findings are the ones checker.Analyze gave.
//
// A package that does not load or type-check is reported on stderr when it
// is found, and every package that does not depend on it is analyzed, as go
// vet does.

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/config"
)

// loadMode asks go list for the package graph and file lists only: the
// driver parses and type-checks itself, one package at a time.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedModule | packages.NeedTypesSizes

// unit is one package of the closure while the run goes on.
type unit struct {
	pkg      *packages.Package
	root     bool // matched by the patterns: all analyzers run and report
	declsOf  bool // GOROOT or no files: declarations only, never analyzed
	imported bool // some package of the run imports it
	imports  []*unit
	done     chan struct{} // closed when types, facts and broken are final

	// Written before done is closed, read only after it.
	types    *types.Package
	broken   bool                          // no types: its own errors or a dependency's
	failed   map[*analysis.Analyzer]string // actions that failed here, for checker's "failed prerequisites"
	objFacts map[objectFactKey]analysis.Fact
	pkgFacts map[reflect.Type]analysis.Fact
}

type objectFactKey struct {
	obj types.Object
	typ reflect.Type
}

// pkgRun is what a root package's analysis leaves for the outputs once its
// syntax is gone.
type pkgRun struct {
	pkg       *packages.Package
	acts      []actRun
	fn        map[token.Pos]string // enclosing function of each reported position
	inventory []inventory.Entry
}

type actRun struct {
	analyzer   *analysis.Analyzer
	diags      []analysis.Diagnostic
	suppressed []rule.Suppressed
}

// engine runs the analyzers over a loaded package graph.
type engine struct {
	fset      *token.FileSet
	cwd       string
	roots     []*analysis.Analyzer // the analyzers whose diagnostics are reported (checker's root actions)
	rootAs    []*analysis.Analyzer // every analyzer a root package runs, prerequisites first
	factAs    []*analysis.Analyzer // the subset a dependency runs: fact analyzers and their prerequisites
	inventory bool
	source    config.Source    // the configuration the analyzers were bound to, for the inventory
	report    func(msg string) // a package that cannot be analyzed, as soon as known
	growthTo  io.Writer        // where the growth curve goes, if GATESIFT_VET_GROWTH=1

	mu      sync.Mutex
	runs    map[*packages.Package]*pkgRun // the roots'
	actErrs []actionError
	broken  []brokenPackage  // packages with their own errors
	skipped []skippedPackage // packages not analyzed because an import is broken
}

// newEngine orders the analyzers: roots run all of them and their
// prerequisites; a dependency only those with facts (and theirs), as in
// checker.Analyze.
func newEngine(roots []*analysis.Analyzer, cwd string, inv bool, src config.Source, report func(string)) (*engine, error) {
	if err := analysis.Validate(roots); err != nil {
		return nil, err
	}
	e := &engine{fset: token.NewFileSet(), cwd: cwd, roots: roots, inventory: inv, source: src, report: report, runs: map[*packages.Package]*pkgRun{}}
	e.rootAs = closure(roots)
	var withFacts []*analysis.Analyzer
	for _, a := range e.rootAs {
		if len(a.FactTypes) > 0 {
			withFacts = append(withFacts, a)
		}
	}
	e.factAs = closure(withFacts)
	return e, nil
}

// closure lists as and their prerequisites, each after what it requires.
func closure(as []*analysis.Analyzer) []*analysis.Analyzer {
	var out []*analysis.Analyzer
	seen := map[*analysis.Analyzer]bool{}
	var visit func(a *analysis.Analyzer)
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		out = append(out, a)
	}
	for _, a := range as {
		visit(a)
	}
	return out
}

// run analyzes the closure of roots, at most GOMAXPROCS packages at a time
// and at most one large one (see admission), each once all its imports are
// done.
func (e *engine) run(roots []*packages.Package) {
	units := map[*packages.Package]*unit{}
	var all []*unit
	var mk func(p *packages.Package) *unit
	mk = func(p *packages.Package) *unit {
		if u, ok := units[p]; ok {
			return u
		}
		u := &unit{pkg: p, done: make(chan struct{}), declsOf: declarationsOnly(p)}
		units[p] = u
		paths := make([]string, 0, len(p.Imports))
		for path := range p.Imports {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths {
			imp := mk(p.Imports[path])
			imp.imported = true
			u.imports = append(u.imports, imp)
		}
		all = append(all, u)
		return u
	}
	for _, p := range roots {
		mk(p).root = true
	}
	// Errors go list already knows are reported before any type-checking.
	for _, u := range all {
		if len(u.pkg.Errors) > 0 {
			e.reportBroken(u, fromPackagesErrors(u.pkg.Errors, e.cwd))
		}
	}
	weights := make([]int64, len(all))
	for i, u := range all {
		weights[i] = weight(u)
	}
	admit := newAdmission(runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	curve := newGrowth(e.growthTo, len(all))
	for i, u := range all { // dependencies first: mk appends after the imports
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer curve.packageDone()
			defer close(u.done)
			for _, imp := range u.imports {
				<-imp.done
			}
			if len(u.pkg.Errors) > 0 {
				u.broken = true
				return
			}
			var brokenImports []string
			for _, imp := range u.imports {
				if imp.broken {
					brokenImports = append(brokenImports, imp.pkg.ID)
				}
			}
			if brokenImports != nil {
				u.broken = true
				slices.Sort(brokenImports)
				e.mu.Lock()
				e.skipped = append(e.skipped, skippedPackage{u.pkg.ID, brokenImports})
				e.mu.Unlock()
				return
			}
			admit.acquire(weights[i])
			defer admit.release(weights[i])
			e.process(u)
		}()
	}
	wg.Wait()
}

// declarationsOnly: the analyzers skip GOROOT packages (and a package
// without files), so their dependents need only their declarations. The
// test is the analyzers' own, effects.InGOROOT on the first file.
func declarationsOnly(p *packages.Package) bool {
	return len(p.CompiledGoFiles) == 0 || effects.InGOROOT(p.CompiledGoFiles[0])
}

func (e *engine) reportBroken(u *unit, errs []packageError) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.broken = append(e.broken, brokenPackage{u.pkg.ID, errs})
	var b strings.Builder
	fmt.Fprintf(&b, "%s: package %s does not load; it and the packages importing it are not analyzed:", progname, u.pkg.ID)
	const max = 10
	for i, err := range errs {
		if i == max {
			fmt.Fprintf(&b, "\n\t... and %d more", len(errs)-max)
			break
		}
		fmt.Fprintf(&b, "\n\t%s", shortenPaths(err.String(), e.cwd))
	}
	e.report(b.String())
}

// process parses and type-checks one package, analyzes it, and keeps only
// its types and facts (and, for a root, its findings).
func (e *engine) process(u *unit) {
	p := u.pkg
	if p.PkgPath == "unsafe" {
		u.types = types.Unsafe
		return
	}
	files, info, errs := e.typeCheck(u)
	if len(errs) > 0 {
		u.broken = true
		e.reportBroken(u, errs)
		return
	}
	if u.declsOf {
		return
	}
	as := e.factAs
	if u.root {
		as = e.rootAs
	}
	if len(as) == 0 {
		return
	}
	e.analyze(u, files, info, as)
}

// analyze runs as (prerequisites first) on u and publishes its facts. A
// root's diagnostics are resolved to what the outputs need before the
// syntax is dropped.
func (e *engine) analyze(u *unit, files []*ast.File, info *types.Info, as []*analysis.Analyzer) {
	p := u.pkg
	module := &analysis.Module{}
	if m := p.Module; m != nil {
		module = &analysis.Module{Path: m.Path, Version: m.Version, GoVersion: m.GoVersion}
	}
	view := &factView{self: u}
	results := map[*analysis.Analyzer]any{}
	diags := map[*analysis.Analyzer][]analysis.Diagnostic{}
	u.failed = map[*analysis.Analyzer]string{}
	u.objFacts = map[objectFactKey]analysis.Fact{}
	u.pkgFacts = map[reflect.Type]analysis.Fact{}
	readable := map[string]bool{}
	for _, list := range [][]string{p.GoFiles, p.CompiledGoFiles, p.OtherFiles, p.IgnoredFiles, p.EmbedFiles} {
		for _, f := range list {
			readable[filepath.Clean(f)] = true
		}
	}
	for _, a := range as {
		if err := e.prerequisitesFailed(u, a); err != "" {
			u.failed[a] = err
			e.actionError(p, a, err)
			continue
		}
		inputs := map[*analysis.Analyzer]any{}
		for _, r := range a.Requires {
			inputs[r] = results[r]
		}
		var running = true
		pass := &analysis.Pass{
			Analyzer:     a,
			Fset:         e.fset,
			Files:        files,
			OtherFiles:   p.OtherFiles,
			IgnoredFiles: p.IgnoredFiles,
			Pkg:          u.types,
			TypesInfo:    info,
			TypesSizes:   p.TypesSizes,
			Module:       module,
			ResultOf:     inputs,
			Report:       func(d analysis.Diagnostic) { diags[a] = append(diags[a], d) },
			ReadFile: func(name string) ([]byte, error) {
				if !readable[filepath.Clean(name)] {
					return nil, fmt.Errorf("Pass.ReadFile: %s is not among OtherFiles, IgnoredFiles, or names of Files", name)
				}
				return os.ReadFile(name)
			},
			ImportObjectFact: func(obj types.Object, ptr analysis.Fact) bool { return view.objectFact(a, obj, ptr) },
			ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
				if !running {
					panic(fmt.Sprintf("%s: Pass.ExportObjectFact(%s, %T) called after Run", a, obj, fact))
				}
				if obj.Pkg() != u.types {
					panic(fmt.Sprintf("internal error: in analysis %s of package %s: Fact.Set(%s, %T): can't set facts on objects belonging another package", a, p.ID, obj, fact))
				}
				u.objFacts[objectFactKey{obj, factType(fact)}] = fact
			},
			ImportPackageFact: func(pkg *types.Package, ptr analysis.Fact) bool { return view.packageFact(a, pkg, ptr) },
			ExportPackageFact: func(fact analysis.Fact) {
				if !running {
					panic(fmt.Sprintf("%s: Pass.ExportPackageFact(%T) called after Run", a, fact))
				}
				u.pkgFacts[factType(fact)] = fact
			},
			AllObjectFacts:  func() []analysis.ObjectFact { return view.allObjectFacts(a) },
			AllPackageFacts: func() []analysis.PackageFact { return view.allPackageFacts(a) },
		}
		res, err := runAnalyzer(pass)
		running = false
		if err == nil {
			for i := range diags[a] {
				if diags[a][i].URL, err = resolveURL(a, diags[a][i]); err != nil {
					break
				}
			}
		}
		if err != nil {
			u.failed[a] = err.Error()
			e.actionError(p, a, err.Error())
			continue
		}
		results[a] = res
	}
	// Downstream, checker keeps only the facts of objects a dependent can
	// see (its exportedFrom filter on the first import edge).
	for k := range u.objFacts {
		if !exportedFrom(k.obj, u.types) {
			// The package's own later analyzers saw it; its dependents
			// do not, as in checker.
			delete(u.objFacts, k)
		}
	}
	if u.root {
		e.keepRoot(u, files, info, results, diags)
	}
	if u.imported {
		e.slim(u, files)
	}
}

// runAnalyzer runs one analyzer and checks its result type, as checker does.
func runAnalyzer(pass *analysis.Pass) (any, error) {
	res, err := pass.Analyzer.Run(pass)
	if err != nil {
		return nil, err
	}
	if got, want := reflect.TypeOf(res), pass.Analyzer.ResultType; got != want {
		return nil, fmt.Errorf("internal error: on package %s, analyzer %s returned a result of type %v, but declared ResultType %v",
			pass.Pkg.Path(), pass.Analyzer, got, want)
	}
	return res, nil
}

// prerequisitesFailed is checker's "failed prerequisites" error for a on u:
// a required analyzer failed on u, or a itself failed on an import.
func (e *engine) prerequisitesFailed(u *unit, a *analysis.Analyzer) string {
	var failed []string
	for _, r := range a.Requires {
		if _, ok := u.failed[r]; ok {
			failed = append(failed, fmt.Sprintf("%s@%s", r, u.pkg.ID))
		}
	}
	if len(a.FactTypes) > 0 {
		for _, imp := range u.imports {
			if _, ok := imp.failed[a]; ok {
				failed = append(failed, fmt.Sprintf("%s@%s", a, imp.pkg.ID))
			}
		}
	}
	if failed == nil {
		return ""
	}
	sort.Strings(failed)
	return "failed prerequisites: " + strings.Join(failed, ", ")
}

func (e *engine) actionError(p *packages.Package, a *analysis.Analyzer, err string) {
	e.mu.Lock()
	e.actErrs = append(e.actErrs, actionError{p.ID, a.Name, err})
	e.mu.Unlock()
}

// keepRoot records a root package's diagnostics with their enclosing
// functions and, for -report, its inventory, while the syntax is alive.
func (e *engine) keepRoot(u *unit, files []*ast.File, info *types.Info, results map[*analysis.Analyzer]any, diags map[*analysis.Analyzer][]analysis.Diagnostic) {
	run := &pkgRun{pkg: u.pkg, fn: map[token.Pos]string{}}
	var invRuns []inventory.Run
	for _, a := range e.roots {
		ar := actRun{analyzer: a, diags: diags[a]}
		if out, ok := results[a].(*rule.Outcome); ok && out != nil {
			ar.suppressed = out.Suppressed
		}
		for _, d := range ar.diags {
			run.fn[d.Pos] = enclosingFunc(files, d.Pos)
		}
		for _, s := range ar.suppressed {
			run.fn[s.Diagnostic.Pos] = enclosingFunc(files, s.Diagnostic.Pos)
		}
		run.acts = append(run.acts, ar)
		if e.inventory {
			var err error
			if msg := u.failed[a]; msg != "" {
				err = fmt.Errorf("%s", msg)
			}
			invRuns = append(invRuns, inventory.Run{Analyzer: a, Result: results[a], Diagnostics: diags[a], Err: err})
		}
	}
	if e.inventory {
		run.inventory = inventory.FromPackage(inventory.Package{
			Fset: e.fset, PkgPath: u.pkg.PkgPath, GoFiles: u.pkg.GoFiles, Types: u.types, Info: info, Syntax: files,
		}, invRuns, e.cwd, e.source)
	}
	e.mu.Lock()
	e.runs[u.pkg] = run
	e.mu.Unlock()
}

func factType(fact analysis.Fact) reflect.Type {
	t := reflect.TypeOf(fact)
	if t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("invalid Fact type: got %T, want pointer", fact))
	}
	return t
}

// exportedFrom is checker's filter of the facts a package passes on to its
// importers (golang.org/x/tools/go/analysis/checker): the objects that may
// be visible to a package importing pkg.
func exportedFrom(obj types.Object, pkg *types.Package) bool {
	switch obj := obj.(type) {
	case *types.Func:
		return obj.Exported() && obj.Pkg() == pkg || obj.Signature().Recv() != nil
	case *types.Var:
		return obj.IsField() || obj.Pkg() == pkg
	case *types.TypeName, *types.Const:
		return true
	}
	return false
}

// resolveURL is the go/analysis drivers' resolution of a diagnostic's URL
// against its analyzer's.
func resolveURL(a *analysis.Analyzer, d analysis.Diagnostic) (string, error) {
	if d.URL == "" && d.Category == "" && a.URL == "" {
		return "", nil
	}
	raw := d.URL
	if d.URL == "" && d.Category != "" {
		raw = "#" + d.Category
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid Diagnostic.URL %q: %s", raw, err)
	}
	base, err := url.Parse(a.URL)
	if err != nil {
		return "", fmt.Errorf("invalid Analyzer.URL %q: %s", a.URL, err)
	}
	return base.ResolveReference(u).String(), nil
}

// printSkipped says which packages were not analyzed because an import
// does not load.
func (e *engine) printSkipped(w io.Writer) {
	if len(e.skipped) == 0 {
		return
	}
	slices.SortFunc(e.skipped, func(a, b skippedPackage) int { return strings.Compare(a.pkgID, b.pkgID) })
	var list []string
	for _, s := range e.skipped {
		list = append(list, s.pkgID)
	}
	const max = 10
	more := ""
	if len(list) > max {
		more = fmt.Sprintf(" and %d more", len(list)-max)
		list = list[:max]
	}
	fmt.Fprintf(w, "%s: not analyzed because an import does not load: %s%s\n", progname, strings.Join(list, ", "), more)
}
