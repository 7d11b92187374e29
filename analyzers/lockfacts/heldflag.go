package lockfacts

import (
	"go/ast"
	"go/token"
	"go/types"
)

// heldFlag: the release runs only while an in-process flag of the receiver
// says this instance holds the lock, a flag the acquire also uses (sets):
// if !l.held { return ErrNotLocked }, or a compare-and-swap on it
// (CasRestoreOnErr(&l.isLocked, true, false, ...), l.locked.CompareAndSwap).
// Then the release is reached only by the instance whose acquire took the
// lock, and a replica whose acquire failed frees no one else's row; what
// is left is a row cleared by hand while its holder still runs, which the
// code alone does not show. A flag the release only writes (l.held =
// false after the delete) is no such check.
func heldFlag(info *types.Info, acquire, release *ast.FuncDecl) bool {
	tested := map[*types.Var]bool{}
	ast.Inspect(release.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			ast.Inspect(n.Cond, func(m ast.Node) bool {
				if v := flagField(info, m); v != nil {
					tested[v] = true
				}
				return true
			})
		case *ast.UnaryExpr:
			// &l.isLocked handed to a compare-and-swap helper
			if v := flagField(info, n.X); v != nil && n.Op == token.AND {
				tested[v] = true
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "CompareAndSwap", "Load", "Swap":
					if v := flagField(info, sel.X); v != nil {
						tested[v] = true
					}
				}
			}
		}
		return true
	})
	if len(tested) == 0 {
		return false
	}
	// the acquire sets the flag: assigns it, hands its address to a
	// compare-and-swap helper, or swaps or stores it; a flag it only reads
	// (if !l.enabled, a configuration) says nothing of who holds the lock
	found := false
	set := func(e ast.Expr) {
		if v := flagField(info, ast.Unparen(e)); v != nil && tested[v] {
			found = true
		}
	}
	ast.Inspect(acquire.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				set(lhs)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				set(n.X)
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "CompareAndSwap", "Store", "Swap":
					set(sel.X)
				}
			}
		}
		return !found
	})
	return found
}

// flagField: n selects a struct field that holds a flag: a bool, or a
// sync/atomic Bool or integer.
func flagField(info *types.Info, n ast.Node) *types.Var {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil
	}
	v, ok := s.Obj().(*types.Var)
	if !ok {
		return nil
	}
	t := types.Unalias(v.Type())
	if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
		return v
	}
	if named, ok := t.(*types.Named); ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "sync/atomic" {
		switch named.Obj().Name() {
		case "Bool", "Int32", "Int64", "Uint32", "Uint64":
			return v
		}
	}
	return nil
}
