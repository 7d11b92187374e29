package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/objectpath"
)

// Parsing and type-checking for the standalone driver (driver.go).

// typeCheck parses u and type-checks it against the types of its imports:
// with full types.Info for a package to analyze, declarations only
// otherwise.
func (e *engine) typeCheck(u *unit) ([]*ast.File, *types.Info, []packageError) {
	files, errs := e.parse(u)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	pkg, info, errs := e.check(u, files, u.declsOf)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	u.types = pkg
	return files, info, nil
}

// parse parses u's files, in parallel as go/packages does: the last
// packages of a run are the large ones, with nothing else to overlap.
func (e *engine) parse(u *unit) ([]*ast.File, []packageError) {
	mode := parser.AllErrors | parser.ParseComments // what go/packages gives the analyzers
	if u.declsOf {
		mode = parser.SkipObjectResolution
	}
	names := u.pkg.CompiledGoFiles
	files := make([]*ast.File, len(names))
	fileErrs := make([][]packageError, len(names))
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(len(names), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				files[i], fileErrs[i] = parseFile(e.fset, names[i], mode)
			}
		}()
	}
	for i := range names {
		work <- i
	}
	close(work)
	wg.Wait()
	var errs []packageError
	for _, fe := range fileErrs {
		errs = append(errs, fe...)
	}
	return slices.DeleteFunc(files, func(f *ast.File) bool { return f == nil }), errs
}

func parseFile(fset *token.FileSet, name string, mode parser.Mode) (*ast.File, []packageError) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, []packageError{{msg: err.Error()}} // the message names the file
	}
	f, err := parser.ParseFile(fset, name, src, mode)
	if err == nil {
		return f, nil
	}
	var errs []packageError
	if list, ok := err.(scanner.ErrorList); ok {
		for _, e := range list {
			errs = append(errs, fromError(fset, e))
		}
	} else {
		errs = append(errs, fromError(fset, err))
	}
	return f, errs
}

// check type-checks files as u against its imports' types: with full
// types.Info, or (declsOnly) the declarations alone, without function
// bodies and without types.Info.
func (e *engine) check(u *unit, files []*ast.File, declsOnly bool) (*types.Package, *types.Info, []packageError) {
	p := u.pkg
	var errs []packageError
	var info *types.Info
	if !declsOnly {
		info = &types.Info{
			Types:        map[ast.Expr]types.TypeAndValue{},
			Defs:         map[*ast.Ident]types.Object{},
			Uses:         map[*ast.Ident]types.Object{},
			Implicits:    map[ast.Node]types.Object{},
			Instances:    map[*ast.Ident]types.Instance{},
			Scopes:       map[ast.Node]*types.Scope{},
			Selections:   map[*ast.SelectorExpr]*types.Selection{},
			FileVersions: map[*ast.File]string{},
		}
	}
	byPath := map[string]*unit{}
	for path, ip := range p.Imports {
		for _, imp := range u.imports {
			if imp.pkg == ip {
				byPath[path] = imp
			}
		}
	}
	conf := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if imp := byPath[path]; imp != nil && imp.types != nil {
				return imp.types, nil
			}
			return nil, fmt.Errorf("no package for import %q", path)
		}),
		IgnoreFuncBodies: declsOnly,
		Sizes:            p.TypesSizes,
		Error:            func(err error) { errs = append(errs, fromError(e.fset, err)) },
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	pkg := types.NewPackage(p.PkgPath, p.Name) // go list's name, as go/packages
	err := types.NewChecker(conf, e.fset, pkg, info).Files(files)
	if err != nil && len(errs) == 0 {
		errs = append(errs, fromError(e.fset, err))
	}
	return pkg, info, errs
}

// slim replaces an analyzed package's types, for its importers, with a
// declarations-only check of the same files, and re-keys its object facts
// by objectpath onto the new objects, as unitchecker does between
// processes. The full types hold a scope and an object for every block and
// local variable of every function body (most of the memory the types of a
// program take); importers never see those, and objects without an
// objectpath (locals) are unreachable from another package, so no fact a
// dependent could look up is lost.
func (e *engine) slim(u *unit, files []*ast.File) {
	lean, _, errs := e.check(u, files, true)
	if len(errs) > 0 {
		return // keep the full types; cannot happen when the full check passed
	}
	rekeyed := make(map[objectFactKey]analysis.Fact, len(u.objFacts))
	var enc objectpath.Encoder
	for k, f := range u.objFacts {
		path, err := enc.For(k.obj)
		if err != nil {
			continue
		}
		obj, err := objectpath.Object(lean, path)
		if err != nil {
			continue
		}
		rekeyed[objectFactKey{obj, k.typ}] = f
	}
	u.types, u.objFacts = lean, rekeyed
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
