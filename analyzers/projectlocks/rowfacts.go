package projectlocks

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
)

// This file exports, per function of the package, the lock rows its own
// body inserts or deletes (lockfacts.RowFact), and imports those of the
// functions of other packages the package calls, so that an acquire or a
// release whose statement is in a query package of the module is read
// like one in its own package.
//
// A call through an interface carries the rows of the implementation when
// exactly one is known: the declaring package has a single type that
// implements it (the fact is put on the interface's methods there), and no
// other type implementing it is visible from the calling package, in it or
// in a package it imports that imports the interface's package (a mock, a
// decorator). Another implementation elsewhere in the module would be a
// guess either way; what the caller can see is what it can judge.

// exportFacts exports the package's RowFacts and returns the facts of
// the calls of files into other packages, by callee.
func exportFacts(pass *analysis.Pass) map[*types.Func]*lockfacts.RowFact {
	if len(pass.Files) == 0 || effects.InGOROOT(pass.Fset.File(pass.Files[0].Pos()).Name()) {
		return nil // the standard library carries no facts (effects.InGOROOT)
	}
	if pass.Module != nil && pass.Module.Version != "" {
		// a module required at a version: the rules report on the module
		// being worked on, whose own query packages are what they read
		return nil
	}
	conf, err := settings.Of(pass)
	if err != nil {
		return nil // reported by the rules, through Locks
	}
	files := rule.ReadFiles(pass.Fset, pass.Files, pass.Pkg.Path(), conf.Config)
	own := map[*types.Func]*lockfacts.RowFact{}
	known := false
	for _, imp := range pass.Pkg.Imports() {
		known = known || conf.Knowledge.Knows(imp.Path())
	}
	for _, fd := range lockfacts.Funcs(files) {
		if !known {
			break // RowOps reads only calls of the stores the knowledge base names
		}
		fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
		if !ok || fd.Body == nil {
			continue
		}
		ops := lockfacts.RowOps(pass.TypesInfo, conf.Knowledge, nil, false, fd.Body, fd.Body)
		if f := lockfacts.NewRowFact(fn, ops); f != nil {
			own[fn] = f
			pass.ExportObjectFact(fn, f)
		}
	}
	if len(own) > 0 {
		exportInterfaceFacts(pass, own)
	}
	return importFacts(pass, files)
}

// exportInterfaceFacts puts on the methods of each interface the package
// declares the facts of its only implementation in the package.
func exportInterfaceFacts(pass *analysis.Pass, own map[*types.Func]*lockfacts.RowFact) {
	scope := pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		impl := lockfacts.SoleImpl(pass.Pkg, iface)
		if impl == nil {
			continue
		}
		for i := 0; i < iface.NumExplicitMethods(); i++ {
			m := iface.ExplicitMethod(i)
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(impl), true, pass.Pkg, m.Name())
			fn, ok := obj.(*types.Func)
			if !ok || own[fn] == nil {
				continue
			}
			f := *own[fn]
			f.Impl = lockfacts.TypeKey(impl)
			pass.ExportObjectFact(m, &f)
		}
	}
}

// importFacts returns the RowFacts of the functions of other packages that
// files call; an interface method's only when no other implementation is
// visible (see above).
func importFacts(pass *analysis.Pass, files []*ast.File) map[*types.Func]*lockfacts.RowFact {
	out := map[*types.Func]*lockfacts.RowFact{}
	seen := map[*types.Func]bool{}
	sole := map[*types.Interface]string{} // interface: the only implementation seen, "" for none or several
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := lockfacts.Callee(pass.TypesInfo, call)
			if fn == nil || fn.Pkg() == nil || fn.Pkg() == pass.Pkg || seen[fn.Origin()] {
				return true
			}
			fn = fn.Origin()
			seen[fn] = true
			fact := new(lockfacts.RowFact)
			if !pass.ImportObjectFact(fn, fact) {
				return true
			}
			if fact.Impl != "" {
				iface := recvInterface(fn)
				if iface == nil {
					return true
				}
				impl, done := sole[iface]
				if !done {
					impl = visibleImpl(pass.Pkg, fn.Pkg(), iface)
					sole[iface] = impl
				}
				if impl != fact.Impl {
					return true // another implementation, or the known one not visible
				}
			}
			out[fn] = fact
			return true
		})
	}
	return out
}

func recvInterface(fn *types.Func) *types.Interface {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	iface, _ := sig.Recv().Type().Underlying().(*types.Interface)
	return iface
}

// visibleImpl returns the only type implementing iface (declared in
// decl) in pkg, in decl and in the packages pkg imports, directly or not,
// that import decl; "" when there is none or more than one.
func visibleImpl(pkg, decl *types.Package, iface *types.Interface) string {
	found := ""
	count := 0
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] || count > 1 {
			return
		}
		seen[p] = true
		if p == pkg || p == decl || imports(p, decl) {
			for _, n := range lockfacts.Implementers(p, iface) {
				count++
				found = lockfacts.TypeKey(n)
			}
		}
		for _, q := range p.Imports() {
			visit(q)
		}
	}
	visit(pkg)
	if count != 1 {
		return ""
	}
	return found
}

func imports(p, decl *types.Package) bool {
	for _, q := range p.Imports() {
		if q == decl {
			return true
		}
	}
	return false
}
