package jobs

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A loop scoped to one call of its spawner: `stop := make(chan struct{});
// go h.pump(stop); defer close(stop)` (or a ctx from context.WithCancel and
// a deferred cancel). The loop lives only while the spawner's call runs,
// so it runs once per replica only if the spawner does: that is the
// spawner's question (a periodic job or a start path calling it, judged
// there), not a background job of its own. The close (or cancel) may be a
// defer or a call on every path to a return (scopedflow.go), and the loop
// may be started through a closure that only forwards the value
// (`go func() { defer wg.Done(); h.pump(ctx) }()`). A stop channel closed
// elsewhere (in Close), a cancel kept in a field, a path that returns
// without the close, a closure that loops itself, or a loop that never
// waits on what it was given leaves the loop a job as before.

// scopedLoop returns why the loop in the function decl is scoped to its
// spawner's call, or "".
func (f *finder) scopedLoop(decl *ast.FuncDecl, loop ast.Node) string {
	if decl == nil || decl.Name.IsExported() {
		return "" // callers in other packages are out of sight
	}
	fn, _ := f.pass.TypesInfo.Defs[decl.Name].(*types.Func)
	if fn == nil {
		return ""
	}
	param, isCtx := f.loopExitParam(decl, loop)
	if param == nil {
		return ""
	}
	funcs := f.eff.SSAFuncs()
	var target *ssa.Function
	for _, s := range funcs {
		if s.Object() == fn && s.Parent() == nil {
			target = s
		}
	}
	if target == nil {
		return ""
	}
	index := -1
	for i, p := range target.Params {
		if p.Object() == param {
			index = i
		}
	}
	if index < 0 {
		return ""
	}
	spawners, why := 0, ""
	for _, s := range funcs {
		for _, b := range s.Blocks {
			for _, in := range b.Instrs {
				var ops []*ssa.Value
				for _, op := range in.Operands(ops) {
					if op == nil || *op != target {
						continue
					}
					sp := spawnOf(s, in, target, index)
					if sp == nil {
						return "" // called, or handed on, some other way
					}
					w := sp.endedBy(isCtx)
					if w == "" {
						return ""
					}
					spawners++
					why = "scoped to its caller's call: " + sp.spawner.Name() + " " + w
				}
			}
		}
	}
	if spawners == 0 {
		return ""
	}
	return why
}

// loopExitParam returns the parameter of decl the loop leaves on: a select
// case `<-stop` or `<-ctx.Done()` whose body returns, stop or ctx being a
// parameter.
func (f *finder) loopExitParam(decl *ast.FuncDecl, loop ast.Node) (*types.Var, bool) {
	var param *types.Var
	isCtx := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if param != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			var x ast.Expr
			switch c := n.Comm.(type) {
			case *ast.ExprStmt:
				x = c.X
			case *ast.AssignStmt:
				if len(c.Rhs) == 1 {
					x = c.Rhs[0]
				}
			}
			u, ok := ast.Unparen(x).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW || !returns(n.Body) {
				return true
			}
			ctx := false
			operand := ast.Unparen(u.X)
			if call, ok := operand.(*ast.CallExpr); ok && len(call.Args) == 0 {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Done" {
					operand, ctx = sel.X, true
				}
			}
			id, ok := operand.(*ast.Ident)
			if !ok {
				return true
			}
			v, _ := f.pass.TypesInfo.Uses[id].(*types.Var)
			if v == nil || !isParam(decl, f.pass.TypesInfo, v) || ctx && !isContext(v.Type()) {
				return true
			}
			param, isCtx = v, ctx
		}
		return true
	})
	return param, isCtx
}

// returns: the clause body returns (directly, not under a condition).
func returns(body []ast.Stmt) bool {
	for _, s := range body {
		if _, ok := s.(*ast.ReturnStmt); ok {
			return true
		}
	}
	return false
}

func isParam(decl *ast.FuncDecl, info *types.Info, v *types.Var) bool {
	for _, field := range decl.Type.Params.List {
		for _, name := range field.Names {
			if info.Defs[name] == v {
				return true
			}
		}
	}
	return false
}
