// Package leadership holds what the leadership rules (LE4001 leadershiploss,
// LE4002 leasetiming) share: lookups of the knowledge base by kind, for struct
// fields as well as functions, and the folding of constant durations through
// named constants and variables that are initialised once and never written
// again.
package leadership

import (
	"go/ast"
	"go/types"

	"github.com/gatesift/gatesift-vet/signals"
)

// Kind returns the entry of the coordinators or locks section that names fn
// with one of kinds, or nil. Unlike signals.Knowledge.Match it looks at every
// entry, so an API listed by another file with another kind is still found.
func Kind(k *signals.Knowledge, fn *types.Func, kinds ...string) *signals.API {
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	return lookup(k, fn.Pkg().Path(), signals.RecvName(fn), fn.Name(), kinds)
}

// FieldOf returns the entry naming the field a key of a composite literal of
// type t refers to, or nil.
func FieldOf(k *signals.Knowledge, t types.Type, field string, kinds ...string) *signals.API {
	n := NamedOf(t)
	if n == nil || n.Obj().Pkg() == nil {
		return nil
	}
	return lookup(k, n.Obj().Pkg().Path(), n.Obj().Name(), field, kinds)
}

// TypeKind returns the entry naming type t itself (an entry without recv whose
// name is the type name) with one of kinds, or nil.
func TypeKind(k *signals.Knowledge, t types.Type, kinds ...string) *signals.API {
	n := NamedOf(t)
	if n == nil || n.Obj().Pkg() == nil {
		return nil
	}
	return lookup(k, n.Obj().Pkg().Path(), "", n.Obj().Name(), kinds)
}

// NamedOf returns the named type of t, through one pointer and aliases.
func NamedOf(t types.Type) *types.Named {
	if t == nil {
		return nil
	}
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, _ := t.(*types.Named)
	return n
}

func lookup(k *signals.Knowledge, pkg, recv, name string, kinds []string) *signals.API {
	if k == nil {
		return nil
	}
	for _, list := range [][]signals.API{k.Coordinators, k.Locks} {
		for i := range list {
			a := &list[i]
			if a.Pkg != pkg || !nameMatches(a.Name, name) || !kindIn(a.Kind, kinds) {
				continue
			}
			if a.Recv == "*" {
				if recv == "" {
					continue
				}
			} else if a.Recv != recv {
				continue
			}
			return a
		}
	}
	return nil
}

func nameMatches(pattern, name string) bool {
	if len(pattern) > 0 && pattern[len(pattern)-1] == '*' {
		p := pattern[:len(pattern)-1]
		return len(name) >= len(p) && name[:len(p)] == p
	}
	return pattern == name
}

func kindIn(kind string, kinds []string) bool {
	if len(kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Callee returns the function or method a call invokes statically, or nil
// (calls of function values, conversions and builtins).
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok { // explicit instantiation f[T](...)
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}
