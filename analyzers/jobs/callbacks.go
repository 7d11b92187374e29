package jobs

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
)

// Callbacks kept for later: the work calls a function stored in a struct
// field (n.notify(ctx) in a ticker loop), and what runs is whatever the
// package stored there:
//
//	n := &notifier{notify: s.charge}
//	go n.run(ctx) // for range t.C { n.notify(ctx) }
//
// An unexported field can be set only in this package, so every store of it
// is visible. When every stored value resolves to a function the package
// shows (a literal, a named function or method value, or a factory of this
// package whose returns are literals) and every one reaches shared state,
// the call has their effects. One store the analysis cannot follow (a
// parameter, an address taken, a positional literal), or one target
// without effects or with its own coordination, leaves the call unknown:
// no evidence, no report.

// callbackEffects returns the effects of the stored callbacks body calls,
// with the calls that reach them.
func (f *finder) callbackEffects(body ast.Node) (effs []effects.Effect, calls []*ast.CallExpr) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		v := f.funcField(call.Fun)
		if v == nil {
			return true
		}
		for _, e := range f.storedEffects(v) {
			if e.Via == "" {
				e.Via = "the callback in field " + v.Name()
			}
			effs = append(effs, e)
			calls = append(calls, call)
		}
		return true
	})
	return effs, calls
}

// funcField returns the unexported func-typed field of this package that
// fun selects, or nil.
func (f *finder) funcField(fun ast.Expr) *types.Var {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := f.pass.TypesInfo.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil
	}
	v, ok := s.Obj().(*types.Var)
	if !ok || v.Exported() || v.Pkg() != f.pass.Pkg {
		return nil
	}
	if _, ok := v.Type().Underlying().(*types.Signature); !ok {
		return nil
	}
	return v
}

// storedEffects returns the effects of every value stored into field v,
// or nil when one store or one target is unknown.
func (f *finder) storedEffects(v *types.Var) []effects.Effect {
	var values []ast.Expr
	unknown := false
	for file := range f.files {
		ast.Inspect(file, func(n ast.Node) bool {
			if unknown {
				return false
			}
			switch n := n.(type) {
			case *ast.CompositeLit:
				if len(n.Elts) > 0 && effects.HasField(f.pass.TypesInfo.TypeOf(n), v) {
					if _, keyed := n.Elts[0].(*ast.KeyValueExpr); !keyed {
						unknown = true // positional: every field is stored
					}
				}
			case *ast.KeyValueExpr:
				if key, ok := n.Key.(*ast.Ident); ok && f.pass.TypesInfo.ObjectOf(key) == v {
					values = append(values, n.Value)
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
					if !ok || f.pass.TypesInfo.ObjectOf(sel.Sel) != v {
						continue
					}
					if len(n.Lhs) != len(n.Rhs) {
						unknown = true
						continue
					}
					values = append(values, n.Rhs[i])
				}
			case *ast.UnaryExpr:
				if sel, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && n.Op == token.AND && f.pass.TypesInfo.ObjectOf(sel.Sel) == v {
					unknown = true // its address escapes
				}
			}
			return true
		})
	}
	if unknown || len(values) == 0 {
		return nil
	}
	var out []effects.Effect
	for _, val := range values {
		if id, ok := ast.Unparen(val).(*ast.Ident); ok && id.Name == "nil" && f.pass.TypesInfo.Uses[id] == types.Universe.Lookup("nil") {
			continue // nothing is called
		}
		effs, ok := f.valueEffects(val)
		if !ok || len(effs) == 0 {
			return nil
		}
		out = append(out, effs...)
	}
	return out
}

// valueEffects returns the effects of a function value: a literal, a named
// function or method value, or a call of a package factory whose every
// return is a function literal. ok is false when the value is unknown or
// the function coordinates its own work.
func (f *finder) valueEffects(val ast.Expr) ([]effects.Effect, bool) {
	switch x := ast.Unparen(val).(type) {
	case *ast.FuncLit:
		return f.bodyEffects(x.Body)
	case *ast.CallExpr:
		d := f.eff.Decl(f.funcRef(x.Fun))
		if d == nil {
			return nil, false
		}
		lits, ok := returnedLiterals(d.Body)
		if !ok {
			return nil, false
		}
		var out []effects.Effect
		for _, lit := range lits {
			effs, ok := f.bodyEffects(lit.Body)
			if !ok || len(effs) == 0 {
				return nil, false
			}
			out = append(out, effs...)
		}
		return out, true
	}
	fn := f.funcRef(val)
	if fn == nil {
		return nil, false
	}
	s := f.eff.Of(fn)
	if s.Coordination != "" || s.Consumes {
		return nil, false
	}
	return s.Effects, true
}

func (f *finder) bodyEffects(body *ast.BlockStmt) ([]effects.Effect, bool) {
	scan := f.eff.Scan(body)
	if scan.FirstCoordination() != nil || scan.Consumes() {
		return nil, false
	}
	return scan.Effects(), true
}

// returnedLiterals returns the function literals a factory returns, or
// false when one return statement returns something else.
func returnedLiterals(body *ast.BlockStmt) ([]*ast.FuncLit, bool) {
	var lits []*ast.FuncLit
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // returns inside a literal are its own
		case *ast.ReturnStmt:
			if len(n.Results) != 1 {
				ok = false
				return false
			}
			lit, isLit := ast.Unparen(n.Results[0]).(*ast.FuncLit)
			if !isLit {
				ok = false
				return false
			}
			lits = append(lits, lit)
		}
		return ok
	})
	return lits, ok && len(lits) > 0
}
