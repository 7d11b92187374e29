package leadershiploss

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// A renewal with no deadline at all: the extreme case of a renewal bounded
// by the expiry it asks for (renewdeadline.go). A holder renews in a paced
// loop whose exit, when a renewal fails, ends the work; the renewal's
// request carries no context with a deadline (nil options, or options given
// context.Background()) and its client's http.Client has no Timeout, as
// its construction in sight shows. When the store stops answering the call
// never returns, the loop never learns of a failure, and after the session
// expires and another process takes the lease this one still works.
//
// The loop and the renewal may be in different packages: a loop that calls
// an interface method of its own package exports PacedRenew on the method,
// and the package implementing it judges its renewal there. Silent when the
// options carry any other context, when the client is built out of sight or
// with an HTTP client or a timeout field of its own, when a watchdog timer
// ends the work at the current expiry, and outside a loop whose exit stops
// the work.

// PacedRenew marks an interface method that its package calls in a paced
// loop whose exit, on the call's failure, stops the work.
type PacedRenew struct {
	At string // the call in the loop, file:line
}

// AFact marks PacedRenew as a fact.
func (*PacedRenew) AFact() {}

func (f *PacedRenew) String() string { return "pacedRenew(" + f.At + ")" }

// loopCall is a call in a paced loop that stops the work once left.
type loopCall struct {
	call *ssa.Call
	stop ssa.Instruction
	at   string
}

// checkUnboundedRenewals reports renewals with no deadline in a paced loop
// that ends the work on failure (here or, through PacedRenew, in the
// package that calls the interface the renewal's method implements).
func (c *checker) checkUnboundedRenewals(ix *deadlineIndex) {
	loops := map[*types.Func]loopCall{}
	for _, fn := range ix.funcs {
		if !waitsForTime(fn) {
			continue // no paced loop here: spare pacing's walks
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				target := c.loopTarget(call)
				if target == nil {
					continue
				}
				if _, seen := loops[target]; seen {
					continue
				}
				if stop := endingLoop(ix, call); stop != nil {
					pos := c.p.Fset.Position(call.Pos())
					loops[target] = loopCall{call: call, stop: stop, at: fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)}
				}
			}
		}
	}
	for m, lc := range loops {
		if r := recvType(m); r != nil && types.IsInterface(r) {
			c.p.ExportObjectFact(m, &PacedRenew{At: lc.at})
		}
	}
	if !c.p.ImportsKnown() {
		return
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(*ssa.Call); ok {
					c.unboundedRenewal(ix, loops, call)
				}
			}
		}
	}
}

// loopTarget returns the function a call in a loop stands for: an
// interface method of this package, or a function of this package, when
// it returns an error.
func (c *checker) loopTarget(call *ssa.Call) *types.Func {
	cc := call.Common()
	var f *types.Func
	if cc.IsInvoke() {
		f = cc.Method
	} else if g := cc.StaticCallee(); g != nil && g.Pkg != nil && g.Pkg.Pkg == c.p.Pkg {
		f, _ = g.Object().(*types.Func)
	}
	if f == nil || f.Pkg() != c.p.Pkg || errorResult(call) == nil {
		return nil
	}
	return f
}

// unboundedRenewal checks one call: a session renewal of the knowledge
// base with no deadline on a client with no timeout, whose loop (its own,
// a caller's in this package, or the interface's its method implements)
// ends the work.
func (c *checker) unboundedRenewal(ix *deadlineIndex, loops map[*types.Func]loopCall, r *ssa.Call) {
	f := funcOf(r.Common())
	api := leadership.Kind(c.p.KB, f, "session-renew")
	if api == nil || r.Common().IsInvoke() {
		return
	}
	at, ok := api.Arg("opts")
	if !ok {
		return
	}
	args := r.Call.Args[1:] // the receiver first
	if at >= len(args) || !noDeadline(args[at]) {
		return
	}
	built := c.clientWithoutTimeout(ix, r.Call.Args[0], 0)
	if built == nil {
		return
	}
	// the loop: around the renewal, around a call of its function, or the
	// interface's whose method its function is
	holder := r.Parent()
	var lc *loopCall
	if stop := endingLoop(ix, r); stop != nil {
		lc = &loopCall{call: r, stop: stop}
	}
	for _, site := range ix.callers[holder] {
		if lc != nil {
			break
		}
		if stop := endingLoop(ix, site); stop != nil {
			lc = &loopCall{call: site, stop: stop}
		}
	}
	via := ""
	if lc == nil {
		m, _ := holder.Object().(*types.Func)
		if m == nil {
			return
		}
		if l, ok := c.pacedInterface(loops, m); ok {
			if l.call != nil {
				lc = &l
			} else {
				via = l.at
			}
		}
	}
	if lc == nil && via == "" {
		return
	}
	node := ix.calls[r.Pos()]
	if node == nil || c.checked[node] {
		return
	}
	c.checked[node] = true
	related := []analysis.RelatedInformation{}
	if n := ix.calls[built.Pos()]; n != nil {
		related = append(related, rule.Related(n, "the client is built here, with no HTTP client timeout"))
	}
	where := "a paced loop"
	if lc != nil {
		if n := ix.calls[lc.call.Pos()]; n != nil && lc.call != r {
			related = append(related, rule.Related(n, "the renewal is called here, in a paced loop"))
		}
		related = append(related, rule.Related(atNode(ix, lc.stop), "the work is stopped only when that loop is left"))
	} else {
		where = "the paced loop at " + via
	}
	c.p.Reportf(node, related,
		"this renewal has no deadline: its options carry no context with one and its client's http.Client has no Timeout, yet it runs in %s that stops the work only when a renewal fails; when the store stops answering the call never returns, the session expires and another process takes the lease while this one still works: two holders; give the renewal a context bounded by the current expiry (WithContext), or the client a Timeout",
		where)
}

// atNode returns a node for an instruction's position.
func atNode(ix *deadlineIndex, in ssa.Instruction) ast.Node {
	if n := ix.calls[in.Pos()]; n != nil {
		return n
	}
	return posNode(in.Pos())
}

// pacedInterface: m implements an interface method called in an ending
// paced loop, of this package (with its call) or of an imported one (with
// the fact's position only).
func (c *checker) pacedInterface(loops map[*types.Func]loopCall, m *types.Func) (loopCall, bool) {
	recv := recvType(m)
	if recv == nil || types.IsInterface(recv) {
		return loopCall{}, false
	}
	implements := func(im *types.Func) bool {
		r := recvType(im)
		if r == nil {
			return false
		}
		it, ok := r.Underlying().(*types.Interface)
		return ok && im.Name() == m.Name() && (types.Implements(recv, it) || types.Implements(types.NewPointer(recv), it))
	}
	for im, lc := range loops {
		if r := recvType(im); r != nil && types.IsInterface(r) && implements(im) {
			return lc, true
		}
	}
	for _, of := range c.p.AllObjectFacts() {
		f, ok := of.Fact.(*PacedRenew)
		im, isFunc := of.Object.(*types.Func)
		if ok && isFunc && im.Pkg() != c.p.Pkg && implements(im) {
			return loopCall{at: f.At}, true
		}
	}
	return loopCall{}, false
}

// recvType returns the receiver type of a method (nil for a function).
func recvType(f *types.Func) types.Type {
	sig, ok := f.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	return sig.Recv().Type()
}

// endingLoop returns what stops the work when the loop around call is left,
// when the call runs in a paced loop, its failure leaves the loop, and no
// watchdog timer ends the work at the current expiry; nil otherwise.
func endingLoop(ix *deadlineIndex, call *ssa.Call) ssa.Instruction {
	if !failureExits(call) {
		return nil
	}
	if paced, _ := pacing(call); !paced {
		return nil
	}
	for fn := call.Parent(); fn != nil; fn = fn.Parent() {
		if expiryWatchdog(ix, fn) {
			return nil
		}
	}
	if stop := cancelAfter(call, nil); stop != nil {
		return stop
	}
	return deferredStop(call)
}

// waitsForTime: fn sleeps or receives from a timer's, a ticker's or
// time.After's channel somewhere (what pacing looks for on a cycle).
func waitsForTime(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Call:
				if f := funcOf(in.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "time" && f.Name() == "Sleep" {
					return true
				}
			case *ssa.UnOp:
				if _, ok := timerChan(in.X); in.Op == token.ARROW && ok {
					return true
				}
			case *ssa.Select:
				for _, st := range in.States {
					if _, ok := timerChan(st.Chan); st.Dir == types.RecvOnly && ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// deferredStop returns a defer of the call's function whose function, or a
// function of the package it calls, cancels or closes a channel, when the
// function can return after the call.
func deferredStop(call *ssa.Call) ssa.Instruction {
	returns := false
	for blk := range blocksAfter(call.Block(), false) {
		for _, in := range blk.Instrs {
			if _, ok := in.(*ssa.Return); ok {
				returns = true
			}
		}
	}
	if !returns {
		return nil
	}
	for _, blk := range call.Parent().Blocks {
		for _, in := range blk.Instrs {
			if d, ok := in.(*ssa.Defer); ok && stopsWithin(d.Common(), call.Parent().Pkg, 0) {
				return d
			}
		}
	}
	return nil
}

// stopsWithin: the call cancels or closes a channel, or calls a function of
// pkg (a function literal, a method) that does, a few calls deep.
func stopsWithin(cc *ssa.CallCommon, pkg *ssa.Package, depth int) bool {
	if stops(cc) {
		return true
	}
	if depth > 3 || cc.IsInvoke() {
		return false
	}
	var body *ssa.Function
	switch v := cc.Value.(type) {
	case *ssa.MakeClosure:
		body, _ = v.Fn.(*ssa.Function)
	case *ssa.Function:
		body = v
	}
	if body == nil || body.Pkg != pkg {
		return false
	}
	for _, b := range body.Blocks {
		for _, in := range b.Instrs {
			if ci, ok := in.(ssa.CallInstruction); ok {
				if _, deferred := in.(*ssa.Defer); !deferred || depth == 0 {
					if stopsWithin(ci.Common(), pkg, depth+1) {
						return true
					}
				}
			}
		}
	}
	return false
}

// errorResult returns the call's error result (its last), or nil.
func errorResult(call *ssa.Call) ssa.Value {
	res := call.Common().Signature().Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return nil
	}
	if res.Len() == 1 {
		return call
	}
	for _, r := range *call.Referrers() {
		if e, ok := r.(*ssa.Extract); ok && e.Index == res.Len()-1 {
			return e
		}
	}
	return nil
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// failureExits: the call's error decides a branch (compared, or passed to a
// predicate such as errors.Is) one of whose arms returns without going back
// through the loop (a block that dominates the call).
func failureExits(call *ssa.Call) bool {
	e := errorResult(call)
	if e == nil {
		return false
	}
	var conds []ssa.Value
	for _, r := range *e.Referrers() {
		switch r := r.(type) {
		case *ssa.BinOp:
			if r.Op == token.EQL || r.Op == token.NEQ {
				conds = append(conds, r)
			}
		case *ssa.Call:
			if b, ok := r.Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
				conds = append(conds, r)
			}
		}
	}
	for _, cond := range conds {
		for _, r := range *cond.Referrers() {
			iff, ok := r.(*ssa.If)
			if !ok {
				continue
			}
			for _, s := range iff.Block().Succs {
				if returnsAvoiding(s, call.Block()) {
					return true
				}
			}
		}
	}
	return false
}

// returnsAvoiding: from b a return is reached without entering a block
// that dominates the call's block (the loop's head, the call's own).
func returnsAvoiding(b, callBlock *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := []*ssa.BasicBlock{b}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] || x.Dominates(callBlock) {
			continue
		}
		seen[x] = true
		for _, in := range x.Instrs {
			if _, ok := in.(*ssa.Return); ok {
				return true
			}
		}
		work = append(work, x.Succs...)
	}
	return false
}

// noDeadline: the options value carries no context with a deadline: nil,
// or options given context.Background() or context.TODO().
func noDeadline(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Const:
		return v.IsNil()
	case *ssa.Call:
		f := funcOf(v.Common())
		if f == nil || f.Name() != "WithContext" || len(v.Call.Args) != 2 {
			return false
		}
		bg, ok := v.Call.Args[1].(*ssa.Call)
		if !ok {
			return false
		}
		g := funcOf(bg.Common())
		return g != nil && g.Pkg() != nil && g.Pkg().Path() == "context" && (g.Name() == "Background" || g.Name() == "TODO")
	}
	return false
}

// clientWithoutTimeout returns the client constructor call the value (the
// renewal's receiver, or the client it came from) was built by, when every
// construction in sight gives it no HTTP timeout; nil when any is unknown.
func (c *checker) clientWithoutTimeout(ix *deadlineIndex, v ssa.Value, depth int) *ssa.Call {
	if depth > 6 || v == nil {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Call:
		f := funcOf(v.Common())
		if f == nil || v.Common().IsInvoke() {
			return nil
		}
		if api := leadership.Kind(c.p.KB, f, "client-config"); api != nil {
			at, ok := api.Arg("config")
			if ok && at < len(v.Call.Args) && c.configWithoutTimeout(v.Call.Args[at]) {
				return v
			}
			return nil
		}
		// a method of the client's package that hands out a part of the
		// client (client.Session()): the client it is called on
		if recvType(f) != nil && f.Pkg() != nil && f.Pkg() != c.p.Pkg && len(v.Call.Args) == 1 && len(f.Pkg().Path()) > 0 {
			return c.clientWithoutTimeout(ix, v.Call.Args[0], depth+1)
		}
	case *ssa.Extract:
		if v.Index == 0 {
			return c.clientWithoutTimeout(ix, v.Tuple, depth+1)
		}
	case *ssa.UnOp:
		if v.Op != token.MUL {
			return nil
		}
		key := storageKey(v.X)
		if key == nil {
			return nil
		}
		var built *ssa.Call
		for _, s := range ix.storesTo(key) {
			b := c.clientWithoutTimeout(ix, s, depth+1)
			if b == nil {
				return nil
			}
			built = b
		}
		return built
	}
	return nil
}

// storesTo returns the values the package stores to a variable, field or
// package variable (storageKey).
func (ix *deadlineIndex) storesTo(key any) []ssa.Value {
	var out []ssa.Value
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if s, ok := in.(*ssa.Store); ok && storageKey(s.Addr) == key {
					out = append(out, s.Val)
				}
			}
		}
	}
	return out
}

// configWithoutTimeout: the config is a default one or a new literal, not
// handed to anything but its client constructor, whose HTTP client field is
// unset or a client without Timeout and whose timeout fields are unset.
func (c *checker) configWithoutTimeout(cfg ssa.Value) bool {
	switch v := cfg.(type) {
	case *ssa.Call:
		if leadership.Kind(c.p.KB, funcOf(v.Common()), "config-default") == nil {
			return false
		}
	case *ssa.Alloc:
		if !v.Heap {
			return false
		}
	default:
		return false
	}
	for _, r := range *cfg.Referrers() {
		switch r := r.(type) {
		case *ssa.FieldAddr:
			field := fieldName(r)
			if leadership.FieldOf(c.p.KB, cfg.Type(), field, "client-timeout") != nil {
				if stored(r) {
					return false
				}
				continue
			}
			if leadership.FieldOf(c.p.KB, cfg.Type(), field, "http-client") == nil {
				continue
			}
			for _, s := range *r.Referrers() {
				if st, ok := s.(*ssa.Store); ok && st.Addr == r && !httpWithoutTimeout(st.Val) {
					return false
				}
			}
		case *ssa.Call:
			if leadership.Kind(c.p.KB, funcOf(r.Common()), "client-config") == nil {
				return false // handed on: it may be changed out of sight
			}
		case *ssa.Store:
			if r.Val == cfg {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

func fieldName(fa *ssa.FieldAddr) string {
	if p, ok := fa.X.Type().Underlying().(*types.Pointer); ok {
		if s, ok := p.Elem().Underlying().(*types.Struct); ok {
			return s.Field(fa.Field).Name()
		}
	}
	return ""
}

// stored: some instruction stores to the address.
func stored(addr ssa.Value) bool {
	for _, r := range *addr.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == addr {
			return true
		}
	}
	return false
}

// httpWithoutTimeout: v is http.DefaultClient or a new http.Client whose
// Timeout is not set.
func httpWithoutTimeout(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.UnOp:
		g, ok := v.X.(*ssa.Global)
		return ok && v.Op == token.MUL && g.Pkg != nil && g.Pkg.Pkg.Path() == "net/http" && g.Name() == "DefaultClient"
	case *ssa.Alloc:
		for _, r := range *v.Referrers() {
			if fa, ok := r.(*ssa.FieldAddr); ok && fieldName(fa) == "Timeout" && stored(fa) {
				return false
			}
		}
		return v.Heap
	}
	return false
}
