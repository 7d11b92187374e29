package leadershiploss

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/signals"
)

// A consumer-group claim (sarama's ConsumeClaim) is leadership of one
// partition for one session: when a rebalance ends the session, the
// coordinator gives the partition to another member, the session's context
// is cancelled and the claim's channel is closed. A loop of the handler that
// can repeat without bound for one message (a re-send after a nack, a retry
// with a sleep, a wait for an ack) and never looks at the session keeps
// working the partition after that, while the new owner works it too.
//
// The check reads the SSA form of each ConsumeClaim and of the functions of
// this package it calls or starts (up to maxSessionDepth), knowing for each
// parameter what the caller handed it: the session, the claim, a context
// known to be detached from the session, or a channel that closes with it.

// maxSessionDepth bounds the calls followed from ConsumeClaim.
const maxSessionDepth = 4

// role is what a parameter or free variable holds, as far as the session goes.
type role int

const (
	roleUnknown  role = iota
	roleSession       // the consumer-group session itself
	roleClaim         // the claim
	roleDetached      // a context known not to end with the session
	roleSessChan      // a channel that closes when the session or claim ends
)

type sessionCheck struct {
	c       *checker
	funcs   []*ssa.Function
	handler *types.Func // the ConsumeClaim being read, for messages
	message types.Type  // its claim's message type
	hooks   map[*ssa.Function]bool
	// stores: every value the package stores into a struct field
	stores   map[*types.Var][]ssa.Value
	owner    map[*types.Var]*types.Struct // the struct declaring a stored field
	hookRefs map[*types.Var]bool          // fields a session hook writes, closes or calls
	hookCall map[*types.Struct]bool
	detached map[*types.Var]int8 // memo: 1 detached, -1 not (or being read)
	reported map[token.Pos]bool
	collect  bool              // record the loops in found instead of reporting them
	found    []ssa.Instruction // the waits collected
}

// frame is one function read from ConsumeClaim with its parameters' roles.
type frame struct {
	fn      *ssa.Function
	roles   map[ssa.Value]role
	message types.Type // the claim's message type
}

// checkSessionClaims reports the unbounded per-message loops of ConsumeClaim
// implementations that do not observe the session's end.
func (c *checker) checkSessionClaims() {
	ifaces := c.claimHandlers()
	if len(ifaces) == 0 {
		return
	}
	var messages []types.Type
	for _, h := range ifaces {
		if h.message != nil {
			messages = append(messages, h.message)
		}
	}
	// the SSA form is read only where there is a handler or a function
	// taking a claimed message (for its BlindLoop fact)
	need := false
	for fn := range c.decls {
		for _, h := range ifaces {
			if fn.Name() == h.method.Name() && fn.Type().(*types.Signature).Recv() != nil {
				need = true
			}
		}
		if messageParam(fn, messages) != nil {
			need = true
		}
	}
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	if eff == nil || !need {
		return
	}
	sc := &sessionCheck{c: c, hooks: map[*ssa.Function]bool{}, stores: map[*types.Var][]ssa.Value{}, owner: map[*types.Var]*types.Struct{},
		hookRefs: map[*types.Var]bool{}, hookCall: map[*types.Struct]bool{}, detached: map[*types.Var]int8{}, reported: map[token.Pos]bool{}}
	var handlers []*frame
	for _, fn := range eff.SSAFuncs() {
		if fn.Parent() != nil || fn.Signature.Recv() == nil || len(fn.Blocks) == 0 {
			continue
		}
		m, _ := fn.Object().(*types.Func)
		if m == nil {
			continue
		}
		for _, h := range ifaces {
			if !implementsVia(fn.Signature.Recv().Type(), h.iface) {
				continue
			}
			switch {
			case m.Name() == h.method.Name():
				if h.message == nil {
					continue
				}
				fr := &frame{fn: fn, roles: map[ssa.Value]role{}, message: h.message}
				if h.session+1 < len(fn.Params) {
					fr.roles[fn.Params[h.session+1]] = roleSession
				}
				if h.claim+1 < len(fn.Params) {
					fr.roles[fn.Params[h.claim+1]] = roleClaim
				}
				handlers = append(handlers, fr)
			case h.hooks[m.Name()]:
				sc.hooks[fn] = true
			}
		}
	}
	sc.funcs = eff.SSAFuncs()
	sc.indexFields()
	sc.exportBlindLoops(messages)
	for _, fr := range handlers {
		sc.handler, _ = fr.fn.Object().(*types.Func)
		sc.message = fr.message
		sc.walk(fr, map[*ssa.Function]bool{}, 0)
	}
}

// claimHandler is a claim-handler interface of an imported package.
type claimHandler struct {
	iface          *types.Interface
	method         *types.Func
	session, claim int
	hooks          map[string]bool
	message        types.Type // the element of the claim's messages channel
}

// claimMessage returns the element type of the channel the claim's
// claim-messages method returns (*sarama.ConsumerMessage), or nil.
func (c *checker) claimMessage(handler *types.Func, claim int) types.Type {
	params := handler.Type().(*types.Signature).Params()
	if claim >= params.Len() {
		return nil
	}
	it, ok := params.At(claim).Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		if leadership.Kind(c.p.KB, m, "claim-messages") == nil {
			continue
		}
		res := m.Type().(*types.Signature).Results()
		if res.Len() == 1 {
			if ch, ok := res.At(0).Type().Underlying().(*types.Chan); ok {
				return ch.Elem()
			}
		}
	}
	return nil
}

func (c *checker) claimHandlers() []claimHandler {
	// the handler interfaces the knowledge base names, by package: looking
	// them up directly spares a walk of every known import's scope
	want := map[string][]string{}
	for _, list := range [][]signals.API{c.p.KB.Coordinators, c.p.KB.Locks} {
		for _, a := range list {
			if a.Kind == "claim-handler" && a.Recv != "" && a.Recv != "*" {
				want[a.Pkg] = append(want[a.Pkg], a.Recv)
			}
		}
	}
	var out []claimHandler
	for _, imp := range c.p.Pkg.Imports() {
		for _, name := range want[imp.Path()] {
			tn, ok := imp.Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			it, ok := tn.Type().Underlying().(*types.Interface)
			if !ok {
				continue
			}
			h := claimHandler{iface: it, hooks: map[string]bool{}}
			for i := 0; i < it.NumMethods(); i++ {
				m := it.Method(i)
				if a := leadership.Kind(c.p.KB, m, "claim-handler"); a != nil {
					s, ok1 := a.Arg("session")
					cl, ok2 := a.Arg("claim")
					if ok1 && ok2 {
						h.method, h.session, h.claim = m, s, cl
						h.message = c.claimMessage(m, cl)
					}
				}
				if leadership.Kind(c.p.KB, m, "session-hook") != nil {
					h.hooks[m.Name()] = true
				}
			}
			if h.method != nil {
				out = append(out, h)
			}
		}
	}
	return out
}

// implementsVia reports whether recv (T or *T) or a pointer to it
// implements it.
func implementsVia(recv types.Type, it *types.Interface) bool {
	if types.Implements(recv, it) {
		return true
	}
	if _, ok := recv.(*types.Pointer); !ok {
		return types.Implements(types.NewPointer(recv), it)
	}
	return false
}

// fieldOf returns the struct field a FieldAddr or Field selects.
func fieldOf(v ssa.Value) (*types.Var, *types.Struct) {
	var t types.Type
	var idx int
	switch v := v.(type) {
	case *ssa.FieldAddr:
		p, ok := v.X.Type().Underlying().(*types.Pointer)
		if !ok {
			return nil, nil
		}
		t, idx = p.Elem(), v.Field
	case *ssa.Field:
		t, idx = v.X.Type(), v.Field
	default:
		return nil, nil
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok || idx >= st.NumFields() {
		return nil, nil
	}
	return st.Field(idx), st
}

// indexFields records the values stored into struct fields, and the fields
// a session hook touches: stores, close, a call of a function field (a
// cancel kept next to the context it cancels).
func (sc *sessionCheck) indexFields() {
	for _, fn := range sc.funcs {
		hook := sc.hooks[fn] || (fn.Parent() != nil && sc.hooks[outermost(fn)])
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Store:
					if f, st := fieldOf(in.Addr); f != nil {
						sc.stores[f] = append(sc.stores[f], in.Val)
						sc.owner[f] = st
						if hook {
							sc.hookRefs[f] = true
						}
					}
				case *ssa.Call:
					if !hook {
						continue
					}
					if b, ok := in.Call.Value.(*ssa.Builtin); ok && b.Name() == "close" && len(in.Call.Args) == 1 {
						if f, _ := fieldOf(loaded(in.Call.Args[0])); f != nil {
							sc.hookRefs[f] = true
						}
					}
					if f, st := fieldOf(loaded(in.Call.Value)); f != nil {
						sc.hookRefs[f] = true
						sc.hookCall[st] = true
					}
				}
			}
		}
	}
}

func outermost(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// loaded returns the address a value was loaded from (*p), or the value.
func loaded(v ssa.Value) ssa.Value {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		return u.X
	}
	return v
}

// walk reads the loops of fr and follows its calls into this package.
func (sc *sessionCheck) walk(fr *frame, seen map[*ssa.Function]bool, depth int) {
	if seen[fr.fn] || depth > maxSessionDepth || len(fr.fn.Blocks) == 0 {
		return
	}
	seen[fr.fn] = true
	sc.checkLoops(fr)
	for _, b := range fr.fn.Blocks {
		for _, in := range b.Instrs {
			ci, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			com := ci.Common()
			callee := com.StaticCallee()
			if callee != nil && callee.Pkg != fr.fn.Pkg {
				sc.importedBlind(fr, com, callee, in)
			}
			if callee == nil || callee.Pkg != fr.fn.Pkg || len(callee.Blocks) == 0 {
				continue
			}
			next := &frame{fn: callee, roles: map[ssa.Value]role{}, message: fr.message}
			for i, a := range com.Args {
				if i < len(callee.Params) {
					next.roles[callee.Params[i]] = sc.roleOf(fr, a)
				}
			}
			if mc, ok := com.Value.(*ssa.MakeClosure); ok {
				for i, bv := range mc.Bindings {
					if i < len(callee.FreeVars) {
						next.roles[callee.FreeVars[i]] = sc.roleOf(fr, bv)
					}
				}
			}
			sc.walk(next, seen, depth+1)
		}
	}
}

// roleOf says what a value handed to a callee holds.
func (sc *sessionCheck) roleOf(fr *frame, v ssa.Value) role {
	if r, ok := fr.roles[v]; ok && r != roleUnknown {
		return r
	}
	switch {
	case isContext(v.Type()):
		if sc.detachedCtx(fr, v, 0) {
			return roleDetached
		}
	case isChan(v.Type()):
		if sc.sessionChan(fr, v, 0) {
			return roleSessChan
		}
	}
	return roleUnknown
}

// contextCall returns the method name when call is a method of a context
// (Done, Err, Deadline, Value) and its receiver.
func contextCall(com *ssa.CallCommon) (string, ssa.Value) {
	if com.IsInvoke() && isContext(com.Value.Type()) {
		return com.Method.Name(), com.Value
	}
	return "", nil
}

const maxTrace = 12

// detachedCtx reports whether a context is known not to end with the
// session: context.Background, TODO or WithoutCancel, what is derived from
// one, a parameter the caller handed a detached context, or an unexported
// field of this package that only ever holds detached contexts. Anything
// else (unknown code) may be the session's.
func (sc *sessionCheck) detachedCtx(fr *frame, v ssa.Value, depth int) bool {
	if depth > maxTrace {
		return false
	}
	switch v := v.(type) {
	case *ssa.Call:
		if fn := v.Call.StaticCallee(); fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "context" {
			switch fn.Name() {
			case "Background", "TODO", "WithoutCancel":
				return true
			}
		}
		if sc.sessionContextCall(&v.Call) {
			return false
		}
		// a helper deriving a context (context.WithCancel, a WithValue
		// wrapper): detached when the context it derives from is
		if a := firstContextArg(&v.Call); a != nil {
			return sc.detachedCtx(fr, a, depth+1)
		}
		return false
	case *ssa.Extract:
		return sc.detachedCtx(fr, v.Tuple, depth+1)
	case *ssa.Parameter, *ssa.FreeVar:
		return fr.roles[v] == roleDetached
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if f, _ := fieldOf(v.X); f != nil {
				return sc.detachedField(f)
			}
		}
		return false
	case *ssa.Field:
		if f, _ := fieldOf(v); f != nil {
			return sc.detachedField(f)
		}
		return false
	case *ssa.Phi:
		for _, e := range v.Edges {
			if e == v {
				continue
			}
			if !sc.detachedCtx(fr, e, depth+1) {
				return false
			}
		}
		return len(v.Edges) > 0
	case *ssa.MakeInterface:
		return sc.detachedCtx(fr, v.X, depth+1)
	case *ssa.ChangeInterface:
		return sc.detachedCtx(fr, v.X, depth+1)
	}
	return false
}

func firstContextArg(com *ssa.CallCommon) ssa.Value {
	for _, a := range com.Args {
		if isContext(a.Type()) {
			return a
		}
	}
	return nil
}

func (sc *sessionCheck) sessionContextCall(com *ssa.CallCommon) bool {
	if !com.IsInvoke() {
		return false
	}
	return leadership.Kind(sc.c.p.KB, com.Method, "session-context") != nil
}

// detachedField: an unexported field of this package, stored somewhere in
// sight, never by a session hook, and never with a value derived from a
// session's context.
func (sc *sessionCheck) detachedField(f *types.Var) bool {
	if m, ok := sc.detached[f]; ok {
		return m == 1
	}
	sc.detached[f] = -1 // a cycle through the field proves nothing
	ok := !f.Exported() && f.Pkg() == sc.c.p.Pkg && len(sc.stores[f]) > 0 && !sc.hookRefs[f]
	if st := sc.owner[f]; st != nil && sc.hookCall[st] {
		ok = false // a hook calls a function field of the struct: a cancel
	}
	for _, v := range sc.stores[f] {
		if !ok {
			break
		}
		if sc.fromSession(v, 0) {
			ok = false
		}
	}
	if ok {
		sc.detached[f] = 1
	}
	return ok
}

// fromSession reports positive evidence that a value derives from a
// session's context: the session-context call, through derivations,
// parameters (their callers' arguments in this package) and fields.
func (sc *sessionCheck) fromSession(v ssa.Value, depth int) bool {
	if depth > maxTrace {
		return false
	}
	switch v := v.(type) {
	case *ssa.Call:
		if sc.sessionContextCall(&v.Call) {
			return true
		}
		for _, a := range v.Call.Args {
			if isContext(a.Type()) && sc.fromSession(a, depth+1) {
				return true
			}
		}
	case *ssa.Extract:
		return sc.fromSession(v.Tuple, depth+1)
	case *ssa.Parameter:
		return sc.callersPass(v, depth)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if e != v && sc.fromSession(e, depth+1) {
				return true
			}
		}
	case *ssa.MakeInterface:
		return sc.fromSession(v.X, depth+1)
	case *ssa.ChangeInterface:
		return sc.fromSession(v.X, depth+1)
	case *ssa.UnOp:
		if f, _ := fieldOf(v.X); f != nil && v.Op == token.MUL {
			for _, s := range sc.stores[f] {
				if s != v && sc.fromSession(s, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// callersPass: some call in this package hands parameter p a value derived
// from a session's context.
func (sc *sessionCheck) callersPass(p *ssa.Parameter, depth int) bool {
	fn := p.Parent()
	idx := paramIndex(fn, p)
	if idx < 0 {
		return false
	}
	for _, caller := range sc.funcs {
		for _, b := range caller.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok || ci.Common().StaticCallee() != fn || idx >= len(ci.Common().Args) {
					continue
				}
				if sc.fromSession(ci.Common().Args[idx], depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// sessionChan reports whether a channel closes when the session or the
// claim ends: Done of a context not known to be detached, the claim's
// messages, a channel field a session hook touches, a parameter handed one.
func (sc *sessionCheck) sessionChan(fr *frame, v ssa.Value, depth int) bool {
	if depth > maxTrace {
		return false
	}
	switch v := v.(type) {
	case *ssa.Call:
		if name, recv := contextCall(&v.Call); name == "Done" {
			return !sc.detachedCtx(fr, recv, 0)
		}
		if v.Call.IsInvoke() && leadership.Kind(sc.c.p.KB, v.Call.Method, "claim-messages") != nil {
			return true
		}
	case *ssa.Parameter, *ssa.FreeVar:
		return fr.roles[v] == roleSessChan
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if f, _ := fieldOf(v.X); f != nil {
				return sc.hookRefs[f]
			}
		}
	case *ssa.Field:
		if f, _ := fieldOf(v); f != nil {
			return sc.hookRefs[f]
		}
	case *ssa.Phi:
		for _, e := range v.Edges {
			if e != v && sc.sessionChan(fr, e, depth+1) {
				return true
			}
		}
	case *ssa.ChangeType:
		return sc.sessionChan(fr, v.X, depth+1)
	}
	return false
}
