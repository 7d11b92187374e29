package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A heartbeat of the process's own registration: registering an instance
// (an exported method handed the instance the process announces) stores
// the value describing it into a registry the receiver holds
// (br.beats.Set(key, info), br.beats[key] = info) and starts, with a go
// statement, a timer loop for that same value; the loop's request is
// made from the value alone. Each replica beats for what it registered
// itself, as it renews its own lease: per-replica by design.
//
// What must hold, by SSA value flow, for every call of the job that
// reaches its effects:
//
//   - the call is a static call of a method of this package whose every
//     argument but the receiver is a parameter of the function making
//     the call (the loop), or a load or field of one;
//   - every call of that function in the package (tests aside) is a go
//     statement, and the value it passes for each such parameter is
//     also handed, in the same function, to the receiver's registry (a
//     method call on a field of the receiver, a map update of such a
//     field);
//   - that value is a struct literal (&Info{...}), built there or passed
//     by every caller of the registering function, each of whose fields
//     is own input (ownWalk in fill mode: the parameters of exported
//     functions, configuration) or what a function of another package of
//     this module with no effects summary computes from it; an edge of a
//     phi that re-reads the registry the value is stored into (the entry
//     already registered) counts too, when another edge is such a
//     literal. A constant (no referrers, never shown stored), a key, a
//     value a call returns (an item of a fetched list) is not.
//
// A beat for a constant key, or for items read from a store or fetched
// from a server (shared data), fails the last point and stays reported.

// OwnHeartbeat returns why every call in calls beats for an instance this
// process registered itself, "" when that is not shown for one of them.
func (r *Result) OwnHeartbeat(calls []*ast.CallExpr) string {
	if len(calls) == 0 {
		return ""
	}
	fl := r.flow()
	for _, call := range calls {
		if call == nil || !r.ownBeatCall(fl, fl.common(call)) {
			return ""
		}
	}
	return "beats for the instance this process registered itself: the request is made from the value its registration stored and started the timer for"
}

func (r *Result) ownBeatCall(fl *flow, c *ssa.CallCommon) bool {
	if c == nil || c.IsInvoke() || c.Signature().Recv() == nil {
		return false
	}
	callee := c.StaticCallee()
	if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg != r.pass.Pkg {
		return false
	}
	var loop *ssa.Function
	for _, g := range fl.funcs {
		for _, b := range g.Blocks {
			for _, in := range b.Instrs {
				if ci, ok := in.(ssa.CallInstruction); ok && ci.Common() == c {
					loop = g
				}
			}
		}
	}
	if loop == nil || loop.Parent() != nil || len(c.Args) < 2 {
		return false
	}
	w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}, fill: true, config: map[*types.Var]bool{}}
	for _, a := range c.Args[1:] {
		p := paramOf(a, loop)
		if p == nil || !r.registeredParam(fl, w, loop, p) {
			return false
		}
	}
	return true
}

// paramOf: a is a non-receiver parameter of fn, or a load or field of one.
func paramOf(a ssa.Value, fn *ssa.Function) *ssa.Parameter {
	for i := 0; i < 4; i++ {
		switch x := a.(type) {
		case *ssa.Parameter:
			if x.Parent() != fn || fn.Signature.Recv() != nil && x == fn.Params[0] {
				return nil
			}
			return x
		case *ssa.FieldAddr:
			a = x.X
		case *ssa.Field:
			a = x.X
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return nil
			}
			a = x.X
		default:
			return nil
		}
	}
	return nil
}

// registeredParam: every call of loop in the package is a go statement
// whose value for p is handed to the caller's registry and is own input.
func (r *Result) registeredParam(fl *flow, w *ownWalk, loop *ssa.Function, p *ssa.Parameter) bool {
	idx := -1
	for i, q := range loop.Params {
		if q == p {
			idx = i
		}
	}
	started := false
	for _, g := range fl.funcs {
		if w.inTest(g) {
			continue
		}
		for _, b := range g.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok || ci.Common().IsInvoke() || ci.Common().StaticCallee() != loop {
					continue
				}
				if _, isGo := ci.(*ssa.Go); !isGo || g.Signature.Recv() == nil || len(g.Params) == 0 {
					return false
				}
				v := ci.Common().Args[idx]
				reg := registryOf(v, g.Params[0])
				if reg == nil || !w.registeredValue(v, reg) {
					return false
				}
				started = true
			}
		}
	}
	return started
}

// registryOf: the field of recv that v is handed to: an argument of a
// method call on the field (beats.Set(k, v)) or a map update of it.
func registryOf(v ssa.Value, recv *ssa.Parameter) *types.Var {
	uses := referrers(v)
	for _, ref := range uses {
		if mi, ok := ref.(*ssa.MakeInterface); ok && mi.X == v {
			uses = append(uses, referrers(mi)...) // Set(k string, v any)
		}
	}
	for _, ref := range uses {
		switch ref := ref.(type) {
		case ssa.CallInstruction:
			c := ref.Common()
			if c.IsInvoke() || c.Signature().Recv() == nil || len(c.Args) < 2 || c.Args[0] == v {
				continue
			}
			if f := recvField(c.Args[0], recv); f != nil {
				return f
			}
		case *ssa.MapUpdate:
			if ref.Value != v {
				continue
			}
			if f := recvField(ref.Map, recv); f != nil {
				return f
			}
		}
	}
	return nil
}

// recvField: x addresses or loads a field of recv directly.
func recvField(x ssa.Value, recv *ssa.Parameter) *types.Var {
	if ld, ok := x.(*ssa.UnOp); ok && ld.Op == token.MUL {
		x = ld.X
	}
	fa, ok := x.(*ssa.FieldAddr)
	if !ok || fa.X != recv {
		return nil
	}
	return fieldOf(fa.X.Type(), fa.Field)
}

// registeredValue: v is an announced literal (no key, no constant); an edge of a phi that
// re-reads the registry reg (the entry already registered) counts.
func (w *ownWalk) registeredValue(v ssa.Value, reg *types.Var) bool {
	if x, ok := v.(*ssa.Phi); ok {
		announced := 0
		for _, e := range x.Edges {
			if readsRegistry(e, reg) {
				continue
			}
			if !w.registeredValue(e, reg) {
				return false
			}
			announced++
		}
		return announced > 0
	}
	if p, ok := v.(*ssa.Parameter); ok {
		return w.registeredParamValue(p, reg)
	}
	if a, ok := v.(*ssa.Alloc); ok {
		return w.announcedLiteral(a)
	}
	return false
}

// registeredParamValue: p is a parameter of the registering function
// (not its receiver) and every call of it in the package (tests aside)
// passes an announced literal; an exported function nothing in the
// package calls is the request path, as for ownParam.
func (w *ownWalk) registeredParamValue(p *ssa.Parameter, reg *types.Var) bool {
	fn := p.Parent()
	if fn == nil || fn.Parent() != nil || fn.Object() == nil || fn.Signature.Recv() != nil && p == fn.Params[0] {
		return false
	}
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	called := false
	for _, g := range w.fl.funcs {
		if w.inTest(g) {
			continue
		}
		for _, b := range g.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok || ci.Common().IsInvoke() || ci.Common().StaticCallee() != fn {
					continue
				}
				a, isLit := ci.Common().Args[idx].(*ssa.Alloc)
				if !isLit || !w.announcedLiteral(a) {
					return false
				}
				called = true
			}
		}
	}
	return called
}

// announcedLiteral: a is a struct literal (&Info{...}) whose every use is
// a store of own input into one of its fields (ownWalk in fill mode: the
// registering exported method's parameters, configuration), a store of
// what a function of another package of this module computes from such
// input (a name joined from the service and its group), or a call that
// hands it on (the registration).
func (w *ownWalk) announcedLiteral(a *ssa.Alloc) bool {
	if !a.Heap || !pointsToStruct(a.Type()) {
		return false
	}
	for _, ref := range referrers(a) {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.FieldAddr:
			for _, use := range referrers(ref) {
				st, ok := use.(*ssa.Store)
				if !ok || st.Addr != ref || !w.moduleComputed(st.Val, 0) {
					return false
				}
			}
		case ssa.CallInstruction:
			if g := ref.Common().StaticCallee(); ref.Common().IsInvoke() || g == nil || g.Pkg != a.Parent().Pkg {
				return false // handed to code that is not this package's
			}
		default:
			return false
		}
	}
	return true
}

// moduleComputed: v is own input, or the basic-typed result of a static call of a
// function of another package of this module that has no effects
// summary, handed only such values.
func (w *ownWalk) moduleComputed(v ssa.Value, depth int) bool {
	if w.own(v, 0) {
		return true
	}
	call, ok := v.(*ssa.Call)
	if !ok || call.Call.IsInvoke() || depth > 2 {
		return false
	}
	if _, basic := call.Type().Underlying().(*types.Basic); !basic {
		return false
	}
	g := call.Call.StaticCallee()
	if g == nil || g.Object() == nil || g.Object().Pkg() == nil || g.Object().Pkg() == w.r.pass.Pkg || !ownModuleCall(w.r.pass, g.Object().Pkg().Path()) {
		return false
	}
	fn, _ := g.Object().(*types.Func)
	if s := w.r.Of(fn); fn == nil || len(s.Effects) > 0 || len(s.Queries) > 0 || s.Consumes {
		return false
	}
	for _, arg := range call.Call.Args {
		if !w.moduleComputed(arg, depth+1) {
			return false
		}
	}
	return true
}

// readsRegistry: v is what a method call on the registry field returns,
// type-asserted or extracted (data, ok := beats.Get(k); data.(*Info)).
func readsRegistry(v ssa.Value, reg *types.Var) bool {
	for i := 0; i < 6; i++ {
		switch x := v.(type) {
		case *ssa.TypeAssert:
			v = x.X
		case *ssa.Extract:
			v = x.Tuple
		case *ssa.Lookup:
			v = x.X
		case *ssa.Call:
			if x.Call.IsInvoke() || x.Call.Signature().Recv() == nil || len(x.Call.Args) == 0 || x.Call.StaticCallee() == nil {
				return false
			}
			v = x.Call.Args[0]
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return false
			}
			v = x.X
		case *ssa.FieldAddr:
			return fieldOf(x.X.Type(), x.Field) == reg
		default:
			return false
		}
	}
	return false
}
