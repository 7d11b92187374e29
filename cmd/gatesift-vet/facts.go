package main

import (
	"go/types"
	"reflect"

	"golang.org/x/tools/go/analysis"
)

// factView is what one package's analysis sees of the facts of the others.
// checker.Analyze copies every dependency's facts into every action (memory
// quadratic in the depth of the graph); here each package keeps its own
// published facts and a lookup applies checker's inheritance rule instead:
// a fact crosses an import edge when exportedFrom(obj, edge's package)
// holds. On the first edge (out of the object's own package) that filter is
// applied once, when the package publishes; on every further edge only
// methods, fields, type names and constants pass. So a fact on a function
// or variable is seen by direct importers only, the rest by every package
// that depends on the object's package.
type factView struct {
	self   *unit
	direct map[*types.Package]bool
	deps   map[*types.Package]*unit // the transitive imports, by their types
}

func (v *factView) load() {
	if v.deps != nil {
		return
	}
	v.direct = map[*types.Package]bool{}
	v.deps = map[*types.Package]*unit{}
	for _, imp := range v.self.imports {
		if imp.types != nil {
			v.direct[imp.types] = true
		}
	}
	stack := append([]*unit(nil), v.self.imports...)
	seen := map[*unit]bool{}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[u] {
			continue
		}
		seen[u] = true
		if u.types != nil {
			v.deps[u.types] = u
		}
		stack = append(stack, u.imports...)
	}
}

// passesOn reports whether checker's exportedFrom holds for obj and a
// package other than its own.
func passesOn(obj types.Object) bool {
	switch obj := obj.(type) {
	case *types.Func:
		return obj.Signature().Recv() != nil
	case *types.Var:
		return obj.IsField()
	case *types.TypeName, *types.Const:
		return true
	}
	return false
}

// visible returns the facts of the package pkg whose objects' facts this
// package may see, and whether facts on objects that do not pass on are
// among them (pkg is this package or a direct import).
func (v *factView) source(pkg *types.Package) (u *unit, direct bool) {
	if pkg == nil {
		return nil, false
	}
	if pkg == v.self.types {
		return v.self, true
	}
	v.load()
	return v.deps[pkg], v.direct[pkg]
}

func hasFactType(a *analysis.Analyzer, t reflect.Type) bool {
	for _, f := range a.FactTypes {
		if reflect.TypeOf(f) == t {
			return true
		}
	}
	return false
}

func (v *factView) objectFact(a *analysis.Analyzer, obj types.Object, ptr analysis.Fact) bool {
	if obj == nil {
		panic("nil object")
	}
	t := factType(ptr)
	if !hasFactType(a, t) {
		return false
	}
	u, direct := v.source(obj.Pkg())
	if u == nil || !direct && !passesOn(obj) {
		return false
	}
	fact, ok := u.objFacts[objectFactKey{obj, t}]
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(fact).Elem())
	}
	return ok
}

func (v *factView) packageFact(a *analysis.Analyzer, pkg *types.Package, ptr analysis.Fact) bool {
	if pkg == nil {
		panic("nil package")
	}
	t := factType(ptr)
	if !hasFactType(a, t) {
		return false
	}
	u, _ := v.source(pkg)
	if u == nil {
		return false
	}
	fact, ok := u.pkgFacts[t]
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(fact).Elem())
	}
	return ok
}

func (v *factView) allObjectFacts(a *analysis.Analyzer) []analysis.ObjectFact {
	v.load()
	var out []analysis.ObjectFact
	add := func(u *unit, direct bool) {
		for k, f := range u.objFacts {
			if hasFactType(a, k.typ) && (direct || passesOn(k.obj)) {
				out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
			}
		}
	}
	add(v.self, true)
	for pkg, u := range v.deps {
		add(u, v.direct[pkg])
	}
	return out
}

func (v *factView) allPackageFacts(a *analysis.Analyzer) []analysis.PackageFact {
	v.load()
	var out []analysis.PackageFact
	add := func(u *unit) {
		for t, f := range u.pkgFacts {
			if hasFactType(a, t) {
				out = append(out, analysis.PackageFact{Package: u.types, Fact: f})
			}
		}
	}
	add(v.self)
	for _, u := range v.deps {
		add(u)
	}
	return out
}
