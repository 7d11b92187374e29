package effects

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"
)

// Answer is a result of a function that carries the answer of a claim the
// function got from one it calls (a queue's Receive that runs the claim in
// a transaction callback and returns the message it got): exported in the
// function's Summary, so that a write keyed by that result in another
// package touches only what this replica won, as one keyed by a claim's
// answer in the claim's own package does (claimedKey).
type Answer struct {
	Result int    // index among the function's results
	Field  string // the field of that result (a struct, or a pointer to one) that is claimed; "" for the whole result
	Claim  string // the claim, for messages
}

// answers lists the results of fn, a function of this package, that every
// return fills with a claim's answer (or a zero value: nothing claimed),
// and, for a struct result that is not claimed whole, its fields that are.
// Only functions that call a claim helper are asked: the SSA form is not
// built for the others.
func (r *Result) answers(fn *types.Func, decl *ast.FuncDecl) []Answer {
	res := fn.Signature().Results()
	if res.Len() == 0 || !r.callsClaim(decl) {
		return nil
	}
	sfn := r.ssaFunc(fn)
	if sfn == nil {
		return nil
	}
	var rets []*ssa.Return
	for _, b := range sfn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			rets = append(rets, ret)
		}
	}
	var out []Answer
	for i := 0; i < res.Len() && len(out) < maxEffects; i++ {
		t := res.At(i).Type()
		if isError(t) {
			continue
		}
		var vals []ssa.Value
		for _, ret := range rets {
			if i < len(ret.Results) && !zeroValue(ret.Results[i]) {
				vals = append(vals, ret.Results[i])
			}
		}
		if len(vals) == 0 {
			continue
		}
		if name := r.allClaimed(vals, 0); name != "" {
			out = append(out, Answer{Result: i, Claim: name})
			continue
		}
		st := structOf(t)
		if st == nil {
			continue
		}
		for j := 0; j < st.NumFields() && len(out) < maxEffects; j++ {
			f := st.Field(j)
			if name := r.allClaimedPart(vals, f.Name(), 0); name != "" {
				out = append(out, Answer{Result: i, Field: f.Name(), Claim: name})
			}
		}
	}
	return out
}

// callsClaim: the body (closures included) calls a function that returns a
// claim's answer.
func (r *Result) callsClaim(decl *ast.FuncDecl) bool {
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok {
			if fn, ok := typeutil.Callee(r.pass.TypesInfo, c).(*types.Func); ok && fn.Pkg() != nil {
				s := r.Of(fn)
				found = s.Gate && s.Coordination != "" || len(s.Answers) > 0
			}
		}
		return !found
	})
	return found
}

// ssaFunc returns the SSA form of a function of this package.
func (r *Result) ssaFunc(fn *types.Func) *ssa.Function {
	for _, f := range r.flow().funcs {
		if f.Object() == fn && f.Parent() == nil {
			return f
		}
	}
	return nil
}

// zeroValue: a zero constant (nil, 0, "") or a local composite value
// nothing is stored into (Message{}): what a function returns when it claimed
// nothing.
func zeroValue(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Const:
		return v.Value == nil || isZeroConst(v)
	case *ssa.UnOp:
		cell, ok := v.X.(*ssa.Alloc)
		if !ok {
			return false
		}
		for _, ref := range referrers(cell) {
			switch x := ref.(type) {
			case *ssa.Store:
				return false
			case *ssa.FieldAddr, *ssa.IndexAddr:
				for _, fref := range referrers(x.(ssa.Value)) {
					if _, isStore := fref.(*ssa.Store); isStore {
						return false
					}
				}
			case *ssa.UnOp, *ssa.DebugRef:
			default:
				return false // handed on (Scan(&m)): it may be filled
			}
		}
		return true
	}
	return false
}

// structOf returns the struct a value of type t is, or points to.
func structOf(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}
