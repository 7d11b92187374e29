package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A periodic refresh of the process's own credential (a login that renews
// the client's access token before it expires): the timer's work POSTs a
// request built only from the client's configuration and keeps what the
// answer's body says in fields of the client itself. Each replica logs in
// for itself and holds its own token, as each orders its own certificate
// (the own-certificate kind, classify.go): per-replica by design.
//
// What must hold, by SSA value flow, for every call of the job that
// reaches its effects (a static call of a function of this package,
// followed through this package's static calls three levels down):
//
//   - there is at least one call that returns an *http.Response (isDo: a
//     client's Do, an agent's Post), and every such call is a refresh;
//     every other call leaves nothing outside the process (stayingCall:
//     io.ReadAll, json.Unmarshal, a log line), so no second request
//     carries a payload this does not judge;
//   - every argument of it but the receiver (the agent) is configuration:
//     constants, scalar fields, a field whose every store in the package
//     is a parameter of an exported function or a constant (the client's
//     constructor, its UpdateServerList), the parameters this package's
//     callers pass such values, strings and map literals built of them
//     (ownWalk in fill mode, configField). A field the package fills from
//     a query or a store's answer is not: a POST that carries shared data
//     stays reported;
//   - what the response's Body yields (read, decoded, looked up,
//     converted) is stored into a field of the receiver of the function
//     that made the request, or handed to a method of such a field
//     (token.Store(v)). A response ignored, only closed, or whose answer
//     only decides a branch (a trigger's "ok") is not kept: the POST stays
//     reported, whatever it does on the server.
//
// Not shown by this (left to the reader): a server that invalidates the
// previous credential of every client on each login.

// OwnRefresh returns why every call in calls refreshes the process's own
// credential, "" when that is not shown for one of them.
func (r *Result) OwnRefresh(calls []*ast.CallExpr) string {
	if len(calls) == 0 {
		return ""
	}
	fl := r.flow()
	for _, call := range calls {
		c := fl.common(call)
		if call == nil || c == nil || c.IsInvoke() {
			return ""
		}
		callee := c.StaticCallee()
		if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg != r.pass.Pkg {
			return ""
		}
		w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}, fill: true, config: map[*types.Var]bool{}}
		if n, ok := w.refreshes(callee, 0, map[*ssa.Function]bool{}); !ok || n == 0 {
			return ""
		}
	}
	return "refreshes this process's own credential: the request carries only configuration and its answer is kept in the client's own fields"
}

// refreshes: every response call fn makes, itself or through this
// package's static calls, is a refresh; n counts them.
func (w *ownWalk) refreshes(fn *ssa.Function, depth int, seen map[*ssa.Function]bool) (n int, ok bool) {
	if fn == nil || depth > 3 {
		return 0, false
	}
	if seen[fn] {
		return 0, true
	}
	seen[fn] = true
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			ci, isCall := in.(ssa.CallInstruction)
			if !isCall {
				continue
			}
			c := ci.Common()
			if isDo(c) {
				call, isValue := ci.(*ssa.Call)
				if !isValue || !w.configRequest(c) || !keepsAnswer(call, fn) {
					return 0, false
				}
				n++
				continue
			}
			if g := c.StaticCallee(); !c.IsInvoke() && g != nil && g.Pkg == fn.Pkg {
				k, ok := w.refreshes(g, depth+1, seen)
				if !ok {
					return 0, false
				}
				n += k
				continue
			}
			if !w.stayingCall(ci) {
				return 0, false // another request (an agent's Notify) whose payload is not judged
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		k, ok := w.refreshes(anon, depth+1, seen)
		if !ok {
			return 0, false
		}
		n += k
	}
	return n, true
}

// stayingCall: a call that reaches nothing outside the process: a builtin,
// a function or interface method of a package that touches nothing
// outside (pureDependency: io.ReadAll, json.Unmarshal, the body's Close),
// or a side call (a log line).
func (w *ownWalk) stayingCall(ci ssa.CallInstruction) bool {
	c := ci.Common()
	if _, builtin := c.Value.(*ssa.Builtin); builtin {
		return true
	}
	var pkg *types.Package
	if c.IsInvoke() {
		pkg = c.Method.Pkg()
	} else if g := c.StaticCallee(); g != nil && g.Object() != nil {
		pkg = g.Object().Pkg()
	}
	if pkg != nil && pkg != w.r.pass.Pkg && w.pureDependency(pkg) {
		return true
	}
	return sideCall(ci, 0)
}

// configRequest: every argument of the request call but its receiver is
// configuration.
func (w *ownWalk) configRequest(c *ssa.CallCommon) bool {
	args := c.Args
	if !c.IsInvoke() && c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:] // the agent or client
	}
	for _, a := range args {
		if mm, ok := a.(*ssa.MakeMap); ok {
			if !w.configMap(mm) {
				return false
			}
			continue
		}
		if !w.own(a, 0) {
			return false
		}
	}
	return true
}

// configMap: a map literal handed to the request whose every key and value
// is configuration and which nothing else fills.
func (w *ownWalk) configMap(m *ssa.MakeMap) bool {
	for _, ref := range referrers(m) {
		switch ref := ref.(type) {
		case *ssa.MapUpdate:
			if ref.Map != m || !w.own(ref.Key, 0) || !w.own(ref.Value, 0) {
				return false
			}
		case *ssa.DebugRef:
		case ssa.CallInstruction:
			if !isDo(ref.Common()) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// configFieldAddr: the field fa addresses is configuration; a field the
// package never stores to (clientCfg.TimeoutMs) is when the struct field
// holding it is.
func (w *ownWalk) configFieldAddr(fa *ssa.FieldAddr, depth int) bool {
	f := fieldOf(fa.X.Type(), fa.Field)
	if f == nil || depth > 3 {
		return false
	}
	if len(w.fl.stores[f]) == 0 {
		if parent, ok := fa.X.(*ssa.FieldAddr); ok {
			return w.configFieldAddr(parent, depth+1)
		}
		return false
	}
	return w.configField(f)
}

// configField: every value the package stores into the field is
// configuration (a constructor's parameter, a constant).
func (w *ownWalk) configField(field *types.Var) bool {
	if done, ok := w.config[field]; ok {
		return done
	}
	w.config[field] = false // filled from itself through a cycle: not shown
	stores := w.fl.stores[field]
	for _, v := range stores {
		if st, ok := v.(ssa.Instruction); ok && w.inTest(st.Parent()) {
			continue
		}
		if !w.own(v, 0) {
			return false
		}
	}
	w.config[field] = len(stores) > 0
	return len(stores) > 0
}

// keepsAnswer: what the Body of the response of call yields reaches a
// store into a field of fn's receiver, or a method of such a field.
func keepsAnswer(call *ssa.Call, fn *ssa.Function) bool {
	if fn.Signature.Recv() == nil || len(fn.Params) == 0 {
		return false
	}
	recv := fn.Params[0]
	var work []ssa.Value
	for _, resp := range extracts(call, 0) {
		for _, ref := range referrers(resp) {
			if fa, ok := ref.(*ssa.FieldAddr); ok {
				if f := fieldOf(fa.X.Type(), fa.Field); f != nil && f.Name() == "Body" {
					work = append(work, fa)
				}
			}
		}
	}
	tainted := map[ssa.Value]bool{}
	for len(work) > 0 && len(tainted) < 400 {
		v := work[0]
		work = work[1:]
		if tainted[v] {
			continue
		}
		tainted[v] = true
		for _, ref := range referrers(v) {
			switch ref := ref.(type) {
			case *ssa.Store:
				if ref.Val != v {
					continue
				}
				if receiverField(ref.Addr, recv) {
					return true
				}
				if cell, ok := ref.Addr.(*ssa.Alloc); ok {
					work = append(work, cell) // a local the answer is kept in
				}
			case *ssa.MapUpdate:
				if ref.Key == v || ref.Value == v {
					work = append(work, ref.Map)
				}
			case ssa.CallInstruction:
				c := ref.Common()
				if !c.IsInvoke() && c.Signature().Recv() != nil && len(c.Args) > 1 && c.Args[0] != v && receiverField(c.Args[0], recv) {
					return true // token.Store(v) on a field of the receiver
				}
				if g := c.StaticCallee(); g != nil && g.Pkg == fn.Pkg {
					continue // this package's helpers are not followed
				}
				if res, ok := ref.(*ssa.Call); ok {
					work = append(work, res)
				}
				// json.Unmarshal(body, &result): the answer lands in the
				// other pointer arguments
				for _, a := range c.Args {
					if mi, ok := a.(*ssa.MakeInterface); ok {
						a = mi.X
					}
					if cell, ok := a.(*ssa.Alloc); ok {
						work = append(work, cell)
					}
				}
			case ssa.Value:
				switch ref.(type) {
				case *ssa.UnOp, *ssa.FieldAddr, *ssa.Field, *ssa.Extract, *ssa.Lookup, *ssa.TypeAssert,
					*ssa.Convert, *ssa.ChangeType, *ssa.ChangeInterface, *ssa.MakeInterface, *ssa.Slice, *ssa.Index, *ssa.IndexAddr, *ssa.Phi:
					work = append(work, ref)
				}
			}
		}
	}
	return false
}

// receiverField: addr is the address of a field of recv, or a load of
// one (a pointer field such as an *atomic.Value), through nested fields.
func receiverField(addr ssa.Value, recv *ssa.Parameter) bool {
	for i := 0; i < 4; i++ {
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			if a.X == recv {
				return true
			}
			addr = a.X
		case *ssa.UnOp:
			if a.Op != token.MUL {
				return false
			}
			addr = a.X
		default:
			return false
		}
	}
	return false
}
