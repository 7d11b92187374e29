package effects

import (
	"go/ast"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/types/typeutil"
)

// ormWrite refines an ORM write from the shape of its call: what the
// builder chain and the arguments show. An update to a constant value and
// a delete by a predicate converge when repeated (idempotent); an update
// whose value the analysis cannot see is unknown, not accumulating. Inserts
// keep their kind: a new row per run accumulates.
func (r *Result) ormWrite(call *ast.CallExpr, fn *types.Func, e *Effect) {
	if fn.Pkg() == nil {
		return
	}
	switch fn.Pkg().Path() {
	case "gorm.io/gorm":
		r.gormWrite(call, fn, e)
	case "xorm.io/xorm":
		r.xormWrite(call, fn, e)
	}
}

// xormWrite: Session/Engine Update and Delete. Incr/Decr in the chain make
// an Update an increment; a map of constants is an update to a value; a
// bean is a value the analysis does not see (unknown). A Delete narrowed by
// ID, Where, In or And deletes by predicate (idempotent).
func (r *Result) xormWrite(call *ast.CallExpr, fn *types.Func, e *Effect) {
	switch fn.Name() {
	case "Update":
		switch {
		case r.chainHas(call, "Incr", "Decr"):
			e.Kind = "increment"
		case len(call.Args) >= 1 && r.constantLiteral(call.Args[0]) && !r.chainHas(call, "SetExpr"):
			e.Idempotent = true
		default:
			e.Unknown = true
		}
	case "Delete":
		if r.chainHas(call, "ID", "Where", "In", "And") {
			e.Idempotent = true
		} else {
			e.Unknown = true
		}
	}
}

func (r *Result) gormWrite(call *ast.CallExpr, fn *types.Func, e *Effect) {
	switch fn.Name() {
	case "Update", "UpdateColumn":
		if len(call.Args) < 2 {
			e.Unknown = true
			return
		}
		switch r.valueShape(call.Args[1]) {
		case constantValue:
			e.Idempotent = true
		case incrementValue:
			e.Kind = "increment"
		default:
			e.Unknown = true
		}
	case "Updates", "UpdateColumns":
		if len(call.Args) == 1 && r.constantLiteral(call.Args[0]) {
			e.Idempotent = true
		} else {
			e.Unknown = true
		}
	case "Save":
		e.Unknown = true // an upsert of a whole record: insert or overwrite, unseen
	case "Delete":
		if len(call.Args) > 1 || r.chainHas(call, "Where", "Not", "Or") {
			e.Idempotent = true // a delete by predicate: a second run finds nothing more
		} else {
			e.Unknown = true
		}
	}
}

type valueKind int

const (
	opaqueValue valueKind = iota
	constantValue
	incrementValue
)

// exprIncrement: gorm.Expr("count + ?", 1) and the like.
var exprIncrement = regexp.MustCompile(`(?i)^\s*"?[a-z_][a-z0-9_]*"?\s*[+-]`)

// valueShape classifies an update value: a constant (after folding), a
// gorm.Expr that adds to the column, or something unseen.
func (r *Result) valueShape(v ast.Expr) valueKind {
	if tv, ok := r.pass.TypesInfo.Types[v]; ok && tv.Value != nil {
		return constantValue
	}
	if c, ok := ast.Unparen(v).(*ast.CallExpr); ok {
		if fn, _ := typeutil.Callee(r.pass.TypesInfo, c).(*types.Func); fn != nil && fn.Pkg() != nil &&
			fn.Pkg().Path() == "gorm.io/gorm" && fn.Name() == "Expr" && len(c.Args) > 0 {
			if s, ok := r.constString(c.Args[0]); ok && exprIncrement.MatchString(s) {
				return incrementValue
			}
			return opaqueValue
		}
	}
	if id, ok := ast.Unparen(v).(*ast.Ident); ok && id.Name == "nil" {
		return constantValue
	}
	return opaqueValue
}

// constantLiteral: a map or struct literal whose values are all constants.
func (r *Result) constantLiteral(v ast.Expr) bool {
	if u, ok := ast.Unparen(v).(*ast.UnaryExpr); ok {
		v = u.X
	}
	lit, ok := ast.Unparen(v).(*ast.CompositeLit)
	if !ok || len(lit.Elts) == 0 {
		return false
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if r.valueShape(el) != constantValue {
			return false
		}
	}
	return true
}

// chainHas: the builder chain the call is made on contains a call of one
// of the names (db.Where(...).Delete(...)).
func (r *Result) chainHas(call *ast.CallExpr, names ...string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	for ok {
		inner, isCall := ast.Unparen(sel.X).(*ast.CallExpr)
		if !isCall {
			return false
		}
		sel, ok = ast.Unparen(inner.Fun).(*ast.SelectorExpr)
		if ok {
			for _, n := range names {
				if sel.Sel.Name == n {
					return true
				}
			}
		}
	}
	return false
}
