package lockfacts

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"
)

// This file folds the constants a lock's evidence rests on: keys, TTLs,
// lease durations, and fields of option literals.

// StringConst returns the constant string value of e.
func StringConst(info *types.Info, e ast.Expr) (string, bool) {
	if e == nil {
		return "", false
	}
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// IntConst returns the constant integer value of e.
func IntConst(info *types.Info, e ast.Expr) (int64, bool) {
	if e == nil {
		return 0, false
	}
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

// ResolveLiteral returns the composite literal e is, or the one the local
// variable e was last assigned from before use in body.
func ResolveLiteral(info *types.Info, body *ast.BlockStmt, e ast.Expr, use token.Pos) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	if lit, ok := e.(*ast.CompositeLit); ok {
		return lit
	}
	id, ok := e.(*ast.Ident)
	if !ok || body == nil {
		return nil
	}
	obj := info.ObjectOf(id)
	var found *ast.CompositeLit
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= use {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if lid, ok := l.(*ast.Ident); ok && info.ObjectOf(lid) == obj && i < len(s.Rhs) {
					lit, _ := ast.Unparen(s.Rhs[i]).(*ast.CompositeLit)
					found = lit
				}
			}
		case *ast.ValueSpec:
			for i, name := range s.Names {
				if info.ObjectOf(name) == obj && i < len(s.Values) {
					lit, _ := ast.Unparen(s.Values[i]).(*ast.CompositeLit)
					found = lit
				}
			}
		}
		return true
	})
	return found
}

// FieldConst returns the constant integer value of field name in lit.
func FieldConst(info *types.Info, lit *ast.CompositeLit, name string) (int64, bool) {
	if lit == nil {
		return 0, false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
			return IntConst(info, kv.Value)
		}
	}
	return 0, false
}

// ExprText is the text of an expression, for comparing receivers and keys.
func ExprText(e ast.Expr) string {
	if e == nil {
		return ""
	}
	return types.ExprString(ast.Unparen(e))
}

// FmtDuration prints a duration the way people write TTLs.
func FmtDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return (d / time.Second * time.Second).String()
	}
	return d.String()
}

// leaseSeconds folds a lease duration in seconds: a constant, or
// int32(d.Seconds()) of a constant time.Duration d (how code converts its
// configured duration for the Azure SDK).
func leaseSeconds(info *types.Info, e ast.Expr) (int64, bool) {
	if v, ok := IntConst(info, e); ok {
		return v, true
	}
	conv, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(conv.Args) != 1 {
		return 0, false
	}
	if tv, ok := info.Types[conv.Fun]; !ok || !tv.IsType() {
		return 0, false
	}
	call, ok := ast.Unparen(conv.Args[0]).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return 0, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Seconds" {
		return 0, false
	}
	fn := Callee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return 0, false
	}
	d, ok := IntConst(info, sel.X)
	if !ok || d%int64(time.Second) != 0 {
		return 0, false
	}
	return d / int64(time.Second), true
}
