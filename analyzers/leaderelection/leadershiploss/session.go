package leadershiploss

import (
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
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
	hooks   map[*ssa.Function]bool
	// stores: every value the package stores into a struct field
	stores   map[*types.Var][]ssa.Value
	owner    map[*types.Var]*types.Struct // the struct declaring a stored field
	hookRefs map[*types.Var]bool          // fields a session hook writes, closes or calls
	hookCall map[*types.Struct]bool
	detached map[*types.Var]int8 // memo: 1 detached, -1 not (or being read)
	reported map[token.Pos]bool
}

// frame is one function read from ConsumeClaim with its parameters' roles.
type frame struct {
	fn    *ssa.Function
	roles map[ssa.Value]role
}

// checkSessionClaims reports the unbounded per-message loops of ConsumeClaim
// implementations that do not observe the session's end.
func (c *checker) checkSessionClaims() {
	ifaces := c.claimHandlers()
	if len(ifaces) == 0 {
		return
	}
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	if eff == nil {
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
				fr := &frame{fn: fn, roles: map[ssa.Value]role{}}
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
	if len(handlers) == 0 {
		return
	}
	sc.funcs = eff.SSAFuncs()
	sc.indexFields()
	for _, fr := range handlers {
		sc.handler, _ = fr.fn.Object().(*types.Func)
		sc.walk(fr, map[*ssa.Function]bool{}, 0)
	}
}

// claimHandler is a claim-handler interface of an imported package.
type claimHandler struct {
	iface          *types.Interface
	method         *types.Func
	session, claim int
	hooks          map[string]bool
}

func (c *checker) claimHandlers() []claimHandler {
	var out []claimHandler
	for _, imp := range c.p.Pkg.Imports() {
		if !c.p.KB.Knows(imp.Path()) {
			continue
		}
		for _, name := range imp.Scope().Names() {
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
			if callee == nil || callee.Pkg != fr.fn.Pkg || len(callee.Blocks) == 0 {
				continue
			}
			next := &frame{fn: callee, roles: map[ssa.Value]role{}}
			args := com.Args
			if com.IsInvoke() {
				continue
			}
			for i, a := range args {
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
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
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

// blockUse is what one block does as far as the check goes.
type blockUse struct {
	observes bool
	waits    []ssa.Instruction
	detached []ssa.Instruction // a detached context's Done or Err read here
}

func (sc *sessionCheck) use(fr *frame, b *ssa.BasicBlock) blockUse {
	var u blockUse
	for _, in := range b.Instrs {
		switch in := in.(type) {
		case *ssa.Select:
			waitsHere := in.Blocking
			for _, st := range in.States {
				if st.Dir == types.RecvOnly && sc.sessionChan(fr, st.Chan, 0) {
					u.observes = true
				}
			}
			if waitsHere {
				u.waits = append(u.waits, in)
			}
		case *ssa.UnOp:
			if in.Op == token.ARROW {
				if sc.sessionChan(fr, in.X, 0) {
					u.observes = true
				} else {
					u.waits = append(u.waits, in)
				}
			}
		case *ssa.Send:
			u.waits = append(u.waits, in)
		case ssa.CallInstruction:
			sc.callUse(fr, in.Common(), in, &u)
		}
	}
	return u
}

func (sc *sessionCheck) callUse(fr *frame, com *ssa.CallCommon, in ssa.Instruction, u *blockUse) {
	if fn := com.StaticCallee(); fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "time" && fn.Name() == "Sleep" {
		u.waits = append(u.waits, in)
		return
	}
	if name, recv := contextCall(com); name != "" {
		if sc.detachedCtx(fr, recv, 0) {
			u.detached = append(u.detached, in)
		} else if name == "Done" || name == "Err" {
			u.observes = true
		}
		return
	}
	if com.IsInvoke() {
		r := fr.roles[com.Value]
		if r == roleSession || r == roleClaim || sc.sessionContextCall(com) {
			return // MarkMessage, Commit, Partition: no look at the session's end
		}
	}
	// handing the session, the claim or a context that may be the
	// session's to other code: it may stop on the session's end
	for _, a := range com.Args {
		switch sc.roleOf(fr, a) {
		case roleSession, roleClaim, roleSessChan:
			u.observes = true
		case roleUnknown:
			if isContext(a.Type()) || sessionTyped(sc.c, a.Type()) {
				u.observes = true
			}
		}
	}
}

// sessionTyped: a value of a type whose session-context method the
// knowledge base names (a session passed on through another variable).
func sessionTyped(c *checker, t types.Type) bool {
	n := leadership.NamedOf(t)
	if n == nil {
		return false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		if leadership.Kind(c.p.KB, m, "session-context", "claim-messages") != nil {
			return true
		}
	}
	return false
}

// loop is a natural loop: its header and body blocks.
type loop struct {
	header *ssa.BasicBlock
	body   map[*ssa.BasicBlock]bool
	latch  []*ssa.BasicBlock
}

func loopsOf(fn *ssa.Function) []*loop {
	byHeader := map[*ssa.BasicBlock]*loop{}
	var out []*loop
	for _, b := range fn.Blocks {
		for _, s := range b.Succs {
			if !s.Dominates(b) {
				continue
			}
			l := byHeader[s]
			if l == nil {
				l = &loop{header: s, body: map[*ssa.BasicBlock]bool{s: true}}
				byHeader[s] = l
				out = append(out, l)
			}
			l.latch = append(l.latch, b)
			stack := []*ssa.BasicBlock{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if l.body[x] {
					continue
				}
				l.body[x] = true
				stack = append(stack, x.Preds...)
			}
		}
	}
	return out
}

// bounded: the loop runs over a map or string (Next), or one of its exits
// tests a counter the loop steps by a constant (for i := 0; i < n; i++,
// range over a slice or an int, a retry count).
func bounded(l *loop) bool {
	for b := range l.body {
		for _, in := range b.Instrs {
			if _, ok := in.(*ssa.Next); ok {
				return true
			}
		}
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		exits := false
		for _, s := range b.Succs {
			if !l.body[s] {
				exits = true
			}
		}
		if !exits {
			continue
		}
		cmp, ok := iff.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		switch cmp.Op {
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			if counter(l, cmp.X) || counter(l, cmp.Y) {
				return true
			}
		}
	}
	return false
}

// counter: a phi of the loop header stepped by a constant in the loop, or
// its next value (a range over a slice compares i+1 with the length).
func counter(l *loop, v ssa.Value) bool {
	if phi := steps(v); phi != nil {
		v = phi
	}
	phi, ok := v.(*ssa.Phi)
	if !ok || phi.Block() != l.header {
		return false
	}
	for _, e := range phi.Edges {
		if steps(e) == phi {
			return true
		}
	}
	return false
}

// steps returns the phi that v adds a constant to or subtracts one from.
func steps(v ssa.Value) *ssa.Phi {
	step, ok := v.(*ssa.BinOp)
	if !ok || (step.Op != token.ADD && step.Op != token.SUB) {
		return nil
	}
	if _, c := step.Y.(*ssa.Const); c {
		phi, _ := step.X.(*ssa.Phi)
		return phi
	}
	if _, c := step.X.(*ssa.Const); c {
		phi, _ := step.Y.(*ssa.Phi)
		return phi
	}
	return nil
}

// checkLoops reports the loops of fr with a round that waits and does not
// pass anything that observes the session's end.
func (sc *sessionCheck) checkLoops(fr *frame) {
	loops := loopsOf(fr.fn)
	if len(loops) == 0 {
		return
	}
	uses := map[*ssa.BasicBlock]blockUse{}
	for _, b := range fr.fn.Blocks {
		uses[b] = sc.use(fr, b)
	}
	for _, l := range loops {
		if uses[l.header].observes || bounded(l) {
			continue
		}
		allowed := func(b *ssa.BasicBlock) bool { return l.body[b] && !uses[b].observes }
		fwd := reachable([]*ssa.BasicBlock{l.header}, allowed, func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Succs })
		var latches []*ssa.BasicBlock
		for _, b := range l.latch {
			if fwd[b] {
				latches = append(latches, b)
			}
		}
		back := reachable(latches, allowed, func(b *ssa.BasicBlock) []*ssa.BasicBlock {
			if b == l.header {
				return nil
			}
			return b.Preds
		})
		var waits, detached []ssa.Instruction
		for b := range fwd {
			if back[b] {
				waits = append(waits, uses[b].waits...)
				detached = append(detached, uses[b].detached...)
			}
		}
		if len(waits) == 0 {
			continue
		}
		sc.report(fr, waits, detached)
	}
}

func reachable(from []*ssa.BasicBlock, ok func(*ssa.BasicBlock) bool, next func(*ssa.BasicBlock) []*ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), from...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || !ok(b) {
			continue
		}
		seen[b] = true
		stack = append(stack, next(b)...)
	}
	return seen
}

// report: at the last wait of the round that is a select or a receive (the
// wait for an answer), else at the last wait; the sleeps and the detached
// context's reads are related.
func (sc *sessionCheck) report(fr *frame, waits, detached []ssa.Instruction) {
	sort.Slice(waits, func(i, j int) bool { return waits[i].Pos() < waits[j].Pos() })
	at := waits[len(waits)-1]
	for i := len(waits) - 1; i >= 0; i-- {
		switch waits[i].(type) {
		case *ssa.Select, *ssa.UnOp:
			at = waits[i]
		default:
			continue
		}
		break
	}
	if !at.Pos().IsValid() || sc.reported[at.Pos()] {
		return
	}
	sc.reported[at.Pos()] = true
	var related []analysis.RelatedInformation
	for _, w := range waits {
		if w != at && w.Pos().IsValid() {
			related = append(related, rule.Related(posNode(w.Pos()), "the same round waits here"))
		}
	}
	how := "observes neither the session's context nor the claim"
	if len(detached) > 0 {
		sort.Slice(detached, func(i, j int) bool { return detached[i].Pos() < detached[j].Pos() })
		how = "watches only a context that is not derived from the session's"
		related = append(related, rule.Related(posNode(detached[0].Pos()), "this context does not end with the session"))
	}
	name := "ConsumeClaim"
	if sc.handler != nil {
		name = sc.handler.Name()
		if pos := sc.handler.Pos(); pos.IsValid() {
			related = append(related, rule.Related(posNode(pos), "the partition is this session's only while %s runs", name))
		}
	}
	where := ""
	if fr.fn.Object() != sc.handler {
		where = " (in " + fr.fn.Name() + ", called from " + name + ")"
	}
	sc.c.p.Reportf(posNode(at.Pos()), related,
		"a round of this loop can repeat for one claimed message without end and %s%s: after a rebalance ends the consumer-group session, this member keeps working the partition that another member now owns; select on sess.Context().Done() in the loop or hand the work a context derived from it", how, where)
}
