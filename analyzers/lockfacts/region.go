package lockfacts

import "go/ast"

// PathTo returns the nodes from root down to target.
func PathTo(root ast.Node, target ast.Node) []ast.Node {
	var stack, out []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if n == target {
			out = append([]ast.Node(nil), stack...)
			return false
		}
		return true
	})
	return out
}

// EnclosingBlock returns the innermost statement list holding the path's
// target and the index of the statement that contains it.
func EnclosingBlock(path []ast.Node) ([]ast.Stmt, int) {
	for i := len(path) - 2; i >= 0; i-- {
		list, ok := StmtList(path[i])
		if !ok {
			continue
		}
		for j, st := range list {
			if st == path[i+1] {
				return list, j
			}
		}
	}
	return nil, 0
}

// StmtList returns the statements n holds directly when n is a block, a
// case clause or a select clause.
func StmtList(n ast.Node) ([]ast.Stmt, bool) {
	switch b := n.(type) {
	case *ast.BlockStmt:
		return b.List, true
	case *ast.CaseClause:
		return b.Body, true
	case *ast.CommClause:
		return b.Body, true
	}
	return nil, false
}

// Inside reports whether n lies within outer.
func Inside(n ast.Node, outer ast.Node) bool {
	return outer.Pos() <= n.Pos() && n.End() <= outer.End()
}

// AssignedTo returns the text of the first left-hand side that call's
// result is assigned to (x := call, x, err := call, var x = call).
func AssignedTo(body *ast.BlockStmt, call *ast.CallExpr) string {
	out := ""
	ast.Inspect(body, func(n ast.Node) bool {
		if out != "" {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && ast.Unparen(s.Rhs[0]) == call && len(s.Lhs) > 0 {
				out = ExprText(s.Lhs[0])
			}
		case *ast.ValueSpec:
			if len(s.Values) == 1 && ast.Unparen(s.Values[0]) == call && len(s.Names) > 0 {
				out = s.Names[0].Name
			}
		}
		return true
	})
	return out
}

// Region returns the statements that run after call while its result is
// held: the rest of the innermost statement list holding call, preceded by
// the body of an if statement whose header holds call.
func Region(body *ast.BlockStmt, call *ast.CallExpr) []ast.Stmt {
	path := PathTo(body, call)
	block, idx := EnclosingBlock(path)
	if block == nil {
		return nil
	}
	var region []ast.Stmt
	if st, ok := block[idx].(*ast.IfStmt); ok && !Inside(call, st.Body) {
		region = append(region, st.Body)
	}
	return append(region, block[idx+1:]...)
}

// Deferred returns the calls of defer statements in body.
func Deferred(body *ast.BlockStmt) map[*ast.CallExpr]bool {
	out := map[*ast.CallExpr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok {
			out[d.Call] = true
		}
		return true
	})
	return out
}
