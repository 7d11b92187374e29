package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/signals"
)

// The syntax gates in front of the read-modify-write search (rmwHits),
// which needs the package's SSA form: a package, a function and a call
// that cannot hold a hit the analysis would act on leave it unbuilt.

// rmwCands returns rmwCandidates of the package, computed once.
func (r *Result) rmwCands() []ast.Node {
	if !r.rmwCandsDone {
		r.rmwCandsDone = true
		r.rmwCandNodes = rmwCandidates(r.pass, r.kb)
	}
	return r.rmwCandNodes
}

// rmwWriteCandidate: call may be the write of a read-modify-write that
// readModifyWrite acts on; known: the call already has effects. From the
// syntax, a superset of what rmwIn and opaqueStore accept: rmwIn keys a
// hit by its write call's Lparen, inside a candidate function, and takes
// only direct method calls x.M(...) on a store receiver (receiverOf: a
// method value or expression calls a wrapper without a receiver) with an
// argument that can carry the incremented value; a write
// with no effect of its own counts only on an opaque store (opaqueStore):
// its method returns an error, and it is an interface method or a method
// of another package on a network client. A generic method is let through
// unread: its SSA callee may be the origin, with other result types.
func (r *Result) rmwWriteCandidate(call *ast.CallExpr, known bool) bool {
	if len(call.Args) == 0 {
		return false // nothing to hand the incremented value to (an empty variadic is a constant nil)
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := r.pass.TypesInfo.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	fn, _ := s.Obj().(*types.Func)
	if fn == nil || !storeMethod(r.pass.Fset, r.kb, fn) {
		return false
	}
	inCandidate := false
	for _, c := range r.rmwCands() {
		if c.Pos() <= call.Lparen && call.Lparen < c.End() {
			inCandidate = true
			break
		}
	}
	if !inCandidate {
		return false
	}
	sig, ok := fn.Type().(*types.Signature)
	if known || !ok || sig.Recv() == nil || fn.Origin() != fn || sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return true
	}
	res := sig.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false // opaqueStore: a write that cannot fail
	}
	recv := sig.Recv().Type()
	if types.IsInterface(recv) {
		return true
	}
	if r.Decl(fn) != nil {
		return false // opaqueStore: a concrete store of this package
	}
	return networkClient(recv, 0)
}

// rmwCandidates returns the function declarations that may hold a
// read-modify-write, from their syntax: two calls on one receiver
// expression of a store type (one of them can fail, or the knowledge base
// names the store), one of them returning data, and an increment. Only
// these get the SSA pass.
func rmwCandidates(pass *analysis.Pass, kb *signals.Knowledge) []ast.Node {
	var out []ast.Node
	for _, f := range pass.Files {
		if strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if rmwShaped(pass.Fset, pass.TypesInfo, kb, fd.Body) {
				out = append(out, fd)
			}
		}
	}
	return out
}

func rmwShaped(fset *token.FileSet, info *types.Info, kb *signals.Knowledge, body *ast.BlockStmt) bool {
	inc := false
	count := map[string]int{}
	fallible := map[string]bool{}
	reads := map[string]bool{} // a call on the receiver returns data
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IncDecStmt:
			inc = true
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				inc = true
			}
		case *ast.BinaryExpr:
			if n.Op == token.ADD || n.Op == token.SUB {
				if b, ok := info.TypeOf(n).Underlying().(*types.Basic); ok && b.Info()&types.IsNumeric != 0 {
					inc = true
				}
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
					inc = true
				}
			}
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			s, ok := info.Selections[sel]
			if !ok || s.Kind() != types.MethodVal {
				return true
			}
			fn, _ := s.Obj().(*types.Func)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			if fn.Pkg().Path() == "math/big" && (fn.Name() == "Add" || fn.Name() == "Sub") {
				inc = true
			}
			if !storeMethod(fset, kb, fn) {
				return true
			}
			known := kb.Match(signals.Effects, fn) != nil
			k := types.ExprString(sel.X)
			count[k]++
			sig, _ := fn.Type().(*types.Signature)
			if sig == nil {
				return true
			}
			res := sig.Results()
			if known || res.Len() > 0 && isError(res.At(res.Len()-1).Type()) {
				fallible[k] = true
			}
			for i := 0; i < res.Len(); i++ {
				if !isError(res.At(i).Type()) {
					reads[k] = true
				}
			}
		}
		return true
	})
	if !inc {
		return false
	}
	for k, n := range count {
		if n >= 2 && fallible[k] && reads[k] {
			return true
		}
	}
	return false
}
