package effects

import (
	"go/ast"
	"go/types"
)

// funcValueTypes are the types of the package's references to a named
// function or method as a value rather than as a call's callee (a method
// value s.db.ExecContext, a function handed on or stored): the only
// values flow.funcOf resolves a function variable to, as function
// literals name no function. anyGeneric: one of them is generic, whose
// SSA function may not have the type of its reference.
type funcValueTypes struct {
	types      []types.Type
	anyGeneric bool
}

// funcValues returns the package's function value references, found once.
func (r *Result) funcValues() *funcValueTypes {
	if r.funcRefs != nil {
		return r.funcRefs
	}
	fv := &funcValueTypes{}
	r.funcRefs = fv
	info := r.pass.TypesInfo
	callee := map[*ast.Ident]bool{}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				fun := ast.Unparen(call.Fun)
				switch x := fun.(type) {
				case *ast.IndexExpr:
					fun = ast.Unparen(x.X)
				case *ast.IndexListExpr:
					fun = ast.Unparen(x.X)
				}
				switch x := fun.(type) {
				case *ast.Ident:
					callee[x] = true
				case *ast.SelectorExpr:
					callee[x.Sel] = true
				}
			}
			return true
		})
	}
	record := func(id *ast.Ident, ref ast.Expr) {
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || callee[id] {
			return
		}
		sig, _ := fn.Type().(*types.Signature)
		t := info.TypeOf(ref)
		if sig == nil || t == nil || fn.Origin() != fn || sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
			fv.anyGeneric = true
			return
		}
		fv.types = append(fv.types, t)
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				record(n.Sel, n)     // typed as the method value or expression
				callee[n.Sel] = true // not again as a bare identifier
			case *ast.Ident:
				record(n, n)
			}
			return true
		})
	}
	return fv
}

// mayHold: a function variable of v's type may hold a function the
// package refers to as a value: funcOf follows only type-preserving steps
// (stores, phis, free variables, type changes) from the variable to the
// function, so the reference has v's underlying type.
func (fv *funcValueTypes) mayHold(v *types.Var) bool {
	if fv.anyGeneric {
		return true
	}
	for _, t := range fv.types {
		if types.Identical(t.Underlying(), v.Type().Underlying()) {
			return true
		}
	}
	return false
}
