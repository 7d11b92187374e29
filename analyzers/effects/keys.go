package effects

import (
	"go/ast"
	"go/types"

	"github.com/gatesift/gatesift-vet/analyzers/sqltext"
)

// keyParams lists the parameters of the function around at that at passes
// as arguments of its write (other than the statement, a context, a
// connection): the write is keyed by them, so the function's callers say
// whose row it is. For an UPDATE or DELETE whose WHERE placeholders can be
// read, only the arguments there count (a holder ID in the SET list
// records who wrote, it does not pick the row). Only values of basic type
// (strings, integers) count: an identity is one, and the fact stays small.
func (r *Result) keyParams(at *ast.CallExpr, query int, text string) []int {
	var where map[int]bool
	if pos, ok := sqltext.WhereArgs(text); ok && query >= 0 {
		where = map[int]bool{}
		for _, k := range pos {
			where[query+k] = true
		}
	}
	var keys []int
	for i, a := range at.Args {
		if i == query || where != nil && !where[i] || !basicValue(r.pass.TypesInfo.TypeOf(a)) {
			continue
		}
		if p := r.paramIndex(at, a); p >= 0 && !containsInt(keys, p) && len(keys) < maxEffects {
			keys = append(keys, p)
		}
	}
	return keys
}

// paramIndex returns the index among the parameters of the function
// declaration around at of the parameter that a names, or -1. It reads the
// syntax, not SSA: a statement's arguments are mostly variadic
// (ExecContext(ctx, q, args...)), which the SSA argument of a parameter
// index does not reach.
func (r *Result) paramIndex(at *ast.CallExpr, a ast.Expr) int {
	id, ok := ast.Unparen(a).(*ast.Ident)
	if !ok {
		return -1
	}
	obj := r.pass.TypesInfo.Uses[id]
	if obj == nil {
		return -1
	}
	decl := r.enclosingDecl(at)
	if decl == nil {
		return -1
	}
	i := 0
	for _, field := range decl.Type.Params.List {
		if len(field.Names) == 0 {
			i++
			continue
		}
		for _, name := range field.Names {
			if r.pass.TypesInfo.Defs[name] == obj {
				return i
			}
			i++
		}
	}
	return -1
}

// enclosingDecl returns the function declaration around n, or nil.
func (r *Result) enclosingDecl(n ast.Node) *ast.FuncDecl {
	for _, f := range r.pass.Files {
		if f.FileStart <= n.Pos() && n.End() <= f.FileEnd {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= n.Pos() && n.End() <= fd.End() {
					return fd
				}
			}
		}
	}
	return nil
}

// ownKey: at call, one of the arguments the callee's write e is
// keyed by is the instance's own identity (a holder ID built from
// os.Hostname and os.Getpid) or comes from a claim's answer (the ID of a
// message this replica received, claimedKey): the write touches this
// replica's own row, per-replica by design or coordinated by the claim.
// Otherwise e.Keys is carried over to the
// parameters of call's function that those arguments are, for its own
// callers to decide. It says whose key it is: "the instance's identity
// (os.Hostname())" or "what a claim returned (...)", or "" for neither.
func (r *Result) ownKey(call *ast.CallExpr, e *Effect) string {
	fl := r.flow()
	var keys []int
	for _, k := range e.Keys {
		arg := fl.arg(call, k)
		if id := fl.identity(arg, 0); id != "" {
			return "the instance's identity (" + id + ")"
		}
		if name := r.claimedKey(arg, 0); name != "" {
			return "what a claim returned (" + name + ")"
		}
		if k >= len(call.Args) {
			continue
		}
		if p := r.paramIndex(call, call.Args[k]); p >= 0 && !containsInt(keys, p) {
			keys = append(keys, p)
		}
	}
	e.Keys = keys // a fresh slice: the callee's summary is shared
	return ""
}

func basicValue(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsString|types.IsInteger) != 0
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}
