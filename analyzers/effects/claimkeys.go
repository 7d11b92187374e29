package effects

import (
	"go/ast"
	"go/constant"
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
	return r.claimedPart(v, "", depth)
}

// claimedPart tells whether v, or its field named field when that is not
// "", comes from the answer of a claim, as claimedKey does. A field is
// claimed when the whole value is, or when every value stored into that
// field of it is (a message built from the claimed row's ID), or when the
// function v is a result of says that field of it is (Summary.Answers).
func (r *Result) claimedPart(v ssa.Value, field string, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	fl := r.flow()
	switch v := v.(type) {
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return r.claimCall(&c.Call, v.Index, field)
		}
	case *ssa.Call:
		return r.claimCall(&v.Call, 0, field)
	case *ssa.Field:
		return r.claimedSelection(v.X, fieldOf(v.X.Type(), v.Field), field, depth)
	case *ssa.FieldAddr:
		return r.claimedSelection(v.X, fieldOf(v.X.Type(), v.Field), field, depth)
	case *ssa.Index:
		return r.claimedPart(v.X, "", depth+1) // an element of a claimed list
	case *ssa.IndexAddr:
		return r.claimedPart(v.X, "", depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return r.claimedPart(v.X, field, depth+1)
		}
	case *ssa.ChangeType:
		return r.claimedPart(v.X, field, depth+1)
	case *ssa.MakeInterface:
		return r.claimedPart(v.X, field, depth+1)
	case *ssa.Alloc:
		// A local the claim's answer was stored into (one captured by a
		// closure lives in an Alloc, stored into by the closure too): every
		// value stored must be claimed; for a field, every value stored
		// into that field of this local counts as well. A zero constant
		// stored (the nil a function with a defer keeps in its result
		// cell when it returns nothing) names no row.
		vals := fl.stores[v]
		if field != "" {
			vals = append(append([]ssa.Value(nil), vals...), fieldStores(v, field)...)
		}
		return r.allClaimedPart(withoutZeroConsts(vals), field, depth)
	case *ssa.FreeVar:
		return r.allClaimedPart(bindings(v), field, depth)
	case *ssa.Phi:
		return r.allClaimedPart(v.Edges, field, depth)
	case *ssa.Parameter:
		if field == "" {
			return r.claimedParam(v, depth)
		}
	}
	return ""
}

// claimedSelection: the field f of x is claimed (as a whole, when want is
// "": x.ID; or want, a field of it: x.Msg.ID, only when x.Msg is claimed
// whole).
func (r *Result) claimedSelection(x ssa.Value, f *types.Var, want string, depth int) string {
	if want != "" {
		return r.claimedPart(x, "", depth+1)
	}
	if name := r.claimedPart(x, "", depth+1); name != "" || f == nil {
		return name
	}
	return r.claimedPart(x, f.Name(), depth+1)
}

// fieldStores returns the values stored into the named field of a local
// struct (x := Message{ID: id}; x.ID = id).
func fieldStores(cell *ssa.Alloc, field string) []ssa.Value {
	var out []ssa.Value
	for _, ref := range referrers(cell) {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		if f := fieldOf(fa.X.Type(), fa.Field); f == nil || f.Name() != field {
			continue
		}
		for _, fref := range referrers(fa) {
			if st, ok := fref.(*ssa.Store); ok && st.Addr == fa {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// claimCall: the callee is a function whose summary is a claim whose
// answer it returns (its first result), or one that says its result (or
// that result's field) carries a claim's answer.
func (r *Result) claimCall(c *ssa.CallCommon, result int, field string) string {
	var fn *types.Func
	if c.IsInvoke() {
		fn = c.Method
	} else if callee := c.StaticCallee(); callee != nil {
		fn, _ = callee.Object().(*types.Func)
	}
	if fn == nil {
		return ""
	}
	s := r.Of(fn)
	if s.Gate && s.Coordination != "" && result == 0 {
		return s.Coordination + " of " + funcName(fn)
	}
	for _, a := range s.Answers {
		if a.Result == result && (a.Field == "" || a.Field == field) {
			return a.Claim
		}
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
	return r.allClaimedPart(vals, "", depth)
}

// allClaimedPart: there is at least one value and the field of every one
// (or every one, for "") is claimed.
func (r *Result) allClaimedPart(vals []ssa.Value, field string, depth int) string {
	name := ""
	for _, x := range vals {
		if name = r.claimedPart(x, field, depth+1); name == "" {
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

// withoutZeroConsts drops the zero constants (nil, 0, "") from vals.
func withoutZeroConsts(vals []ssa.Value) []ssa.Value {
	var out []ssa.Value
	for _, v := range vals {
		if c, ok := v.(*ssa.Const); ok && (c.Value == nil || isZeroConst(c)) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func isZeroConst(c *ssa.Const) bool {
	return isZeroConstValue(c.Value)
}

// isZeroConstValue: "", 0 or false.
func isZeroConstValue(v constant.Value) bool {
	switch v.Kind() {
	case constant.String:
		return constant.StringVal(v) == ""
	case constant.Int:
		return constant.Sign(v) == 0
	case constant.Bool:
		return !constant.BoolVal(v)
	}
	return false
}
