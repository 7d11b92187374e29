package leadershiploss

import (
	"go/ast"
	"go/types"
	"strings"
)

// detachedReturn says what detached context every return of the helper
// yields ("context.Background()"), or "" when one return may carry its
// caller's context or cannot be read.
func (c *checker) detachedReturn(fd *ast.FuncDecl, depth int) string {
	if fd.Body == nil || depth > 2 {
		return ""
	}
	sig, _ := c.info.Defs[fd.Name].(*types.Func)
	if sig == nil {
		return ""
	}
	res := sig.Type().(*types.Signature).Results()
	idx := -1
	for i := 0; i < res.Len(); i++ {
		if isContext(res.At(i).Type()) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return ""
	}
	why := ""
	ok := true
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			var r ast.Expr
			switch {
			case len(n.Results) == res.Len():
				r = n.Results[idx]
			case len(n.Results) == 1 && idx == 0:
				r = n.Results[0] // return context.WithTimeout(...): the tuple's context
			default:
				ok = false // a bare return
				return false
			}
			w := c.detachedExpr(fd, r, depth)
			if w == "" {
				ok = false
			} else {
				why = w
			}
		}
		return ok
	})
	if !ok {
		return ""
	}
	return why
}

// detachedExpr: e, inside fd, is context.Background() or TODO(), a context
// derived from one, or a local variable only ever assigned such.
func (c *checker) detachedExpr(fd *ast.FuncDecl, e ast.Expr, depth int) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := c.callee(e)
		if fn == nil || fn.Pkg() == nil {
			return ""
		}
		if fn.Pkg().Path() == "context" {
			switch {
			case fn.Name() == "Background" || fn.Name() == "TODO":
				return "context." + fn.Name() + "()"
			case strings.HasPrefix(fn.Name(), "With") && len(e.Args) > 0:
				return c.detachedExpr(fd, e.Args[0], depth)
			}
			return ""
		}
		if d := c.decls[fn.Origin()]; d != nil {
			return c.detachedReturn(d, depth+1)
		}
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil || v.Parent() == nil || !(fd.Pos() <= v.Pos() && v.Pos() < fd.End()) {
			return "" // a parameter's or a captured context is its caller's
		}
		if fd.Type.Pos() <= v.Pos() && v.Pos() < fd.Type.End() {
			return "" // a parameter
		}
		why, seen := "", false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || why == "-" {
				return why != "-"
			}
			for i, l := range as.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || c.info.ObjectOf(id) != v {
					continue
				}
				seen = true
				if len(as.Rhs) != len(as.Lhs) && i != 0 {
					why = "-"
					continue
				}
				rhs := as.Rhs[min(i, len(as.Rhs)-1)]
				if w := c.detachedExpr(fd, rhs, depth); w != "" && why != "-" {
					why = w
				} else {
					why = "-"
				}
			}
			return true
		})
		if !seen || why == "-" {
			return ""
		}
		return why
	}
	return ""
}
