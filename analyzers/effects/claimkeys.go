package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// claimedKey tells whether v comes from the answer of a claim (a helper
// that runs a compare-and-set and returns what it claimed: a queue's
// Receive) and names the claim, or "". A write keyed by it touches only
// what this replica won, as for the keys from a claim's answer in the
// claim's own function (gate.go), but seen across functions: through a
// closure over the claimed message, and through a parameter of an
// unexported function every caller in the package fills from a claim.
func (r *Result) claimedKey(v ssa.Value, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	fl := r.flow()
	switch v := v.(type) {
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok && v.Index == 0 {
			return r.claimedKey(c, depth+1)
		}
	case *ssa.Call:
		return r.claimCall(&v.Call)
	case *ssa.Field:
		return r.claimedKey(v.X, depth+1)
	case *ssa.FieldAddr:
		return r.claimedKey(v.X, depth+1)
	case *ssa.Index:
		return r.claimedKey(v.X, depth+1)
	case *ssa.IndexAddr:
		return r.claimedKey(v.X, depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return r.claimedKey(v.X, depth+1)
		}
	case *ssa.ChangeType:
		return r.claimedKey(v.X, depth+1)
	case *ssa.MakeInterface:
		return r.claimedKey(v.X, depth+1)
	case *ssa.Alloc:
		// A local the claim's answer was stored into (one captured by a
		// closure lives in an Alloc): every value stored must be claimed.
		return r.allClaimed(fl.stores[v], depth)
	case *ssa.FreeVar:
		return r.allClaimed(bindings(v), depth)
	case *ssa.Phi:
		return r.allClaimed(v.Edges, depth)
	case *ssa.Parameter:
		return r.claimedParam(v, depth)
	}
	return ""
}

// claimCall: the callee is a function whose summary is a claim whose
// answer it returns.
func (r *Result) claimCall(c *ssa.CallCommon) string {
	var fn *types.Func
	if c.IsInvoke() {
		fn = c.Method
	} else if callee := c.StaticCallee(); callee != nil {
		fn, _ = callee.Object().(*types.Func)
	}
	if fn == nil {
		return ""
	}
	if s := r.Of(fn); s.Gate && s.Coordination != "" {
		return s.Coordination + " of " + funcName(fn)
	}
	return ""
}

// claimedParam: p is a parameter of an unexported function of this package
// (no caller outside it) that every call in the package fills with a
// claimed value; a function called nowhere, or used as a value, is not.
func (r *Result) claimedParam(p *ssa.Parameter, depth int) string {
	// Memoized; a parameter met again while its callers are being read (a
	// recursive call) counts as not claimed: precision first.
	if name, ok := r.claimParams[p]; ok {
		return name
	}
	if r.claimParams == nil {
		r.claimParams = map[*ssa.Parameter]string{}
	}
	r.claimParams[p] = ""
	name := r.claimedParamOnce(p, depth)
	r.claimParams[p] = name
	return name
}

func (r *Result) claimedParamOnce(p *ssa.Parameter, depth int) string {
	fn := p.Parent()
	if fn == nil || fn.Parent() != nil || fn.Object() == nil || fn.Object().Exported() {
		return ""
	}
	idx := -1
	for i, x := range fn.Params {
		if x == p {
			idx = i
		}
	}
	if idx < 0 {
		return ""
	}
	if r.usedAsValue(fn.Object()) {
		return ""
	}
	var passed []ssa.Value
	for _, list := range r.flow().calls {
		for _, c := range list {
			if c.StaticCallee() != fn {
				continue
			}
			if idx >= len(c.Args) {
				return ""
			}
			passed = append(passed, c.Args[idx])
		}
	}
	return r.allClaimed(passed, depth)
}

// usedAsValue: the function is named somewhere other than as the callee
// of a call (a method value handed on as a callback, a function stored in
// a field), so some of its calls are out of sight. The set is computed
// once per package.
func (r *Result) usedAsValue(fn types.Object) bool {
	if r.asValue == nil {
		r.asValue = map[types.Object]bool{}
		callees := map[*ast.Ident]bool{}
		for _, f := range r.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					switch f := ast.Unparen(c.Fun).(type) {
					case *ast.Ident:
						callees[f] = true
					case *ast.SelectorExpr:
						callees[f.Sel] = true
					}
				}
				return true
			})
		}
		for id, obj := range r.pass.TypesInfo.Uses {
			if _, isFunc := obj.(*types.Func); isFunc && !callees[id] {
				r.asValue[obj] = true
			}
		}
	}
	return r.asValue[fn]
}

// allClaimed: there is at least one value and every one is claimed.
func (r *Result) allClaimed(vals []ssa.Value, depth int) string {
	name := ""
	for _, x := range vals {
		if name = r.claimedKey(x, depth+1); name == "" {
			return ""
		}
	}
	return name
}

// claimedArgName: an argument of call (a statement's, unpacked from its
// variadic slice) comes from a claim's answer; it names the claim, or "".
func (r *Result) claimedArgName(call *ast.CallExpr) string {
	if len(call.Args) < 2 {
		return ""
	}
	fl := r.flow()
	for _, v := range fl.args(call) {
		if name := r.claimedKey(v, 0); name != "" {
			return name
		}
	}
	return ""
}
