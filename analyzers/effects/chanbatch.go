package effects

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A batch request a run loop fills from its own input channel: a client
// holds an input channel its Push method sends to (the process's own
// producers), a loop selects on a flush ticker and on receives from that
// channel, appends each received value to a slice field of a request
// literal (wr := &request{}; wr.items = append(wr.items, v)), and the
// ticker case (or a size threshold) hands the request to the flush that
// posts it. Every replica posts what its own producers pushed: per-replica
// batching, not singleton work (ownbatch.go).
//
// What must hold, each read by SSA value flow:
//
//   - the request is a literal of the function, whose every field store is
//     own data (append of the field itself and a value received on an own
//     channel), whose address goes only to loads, to closures that use it
//     the same way, and to the flush helper being judged (no other call,
//     which might fill it from a store);
//   - the channel is a field every store into which, anywhere in the
//     package, is a fresh make(chan) (not a channel a consumer or a
//     subscription library hands out for a shared queue), and every send
//     on which, anywhere in the package, sends own input: a parameter of
//     an exported method (the producers' path) or values built from one,
//     judged as ownbuffer.go judges a buffer's appends. A goroutine that
//     reads rows or a store's answer and sends them on the channel makes
//     the batch shared work: the flush stays reported (the poller is the
//     job);
//   - the flush helper reaches no database/sql (ownbatch.go).

// ownLiteral: the address of a composite literal (&stat{...}) whose every
// field store is own data and whose address is handed to no call but the
// flush helper being judged (w.sink), directly or from a closure that
// captures it.
func (w *ownWalk) ownLiteral(a *ssa.Alloc, depth int) bool {
	if a.Referrers() == nil {
		return false
	}
	if _, ok := a.Type().Underlying().(*types.Pointer); !ok {
		return false
	}
	return w.literalUses(a, depth, 0)
}

// literalUses: every use of addr (the literal, or a closure's free variable
// bound to it) is a field store of own data, a load, a binding into a
// closure that uses it so, or the flush helper's argument.
func (w *ownWalk) literalUses(addr ssa.Value, depth, closures int) bool {
	if addr.Referrers() == nil || closures > 3 {
		return false
	}
	for _, ref := range *addr.Referrers() {
		switch ref := ref.(type) {
		case *ssa.FieldAddr:
			if ref.Referrers() == nil {
				return false
			}
			for _, r2 := range *ref.Referrers() {
				switch r2 := r2.(type) {
				case *ssa.Store:
					if r2.Addr != ref || !w.own(r2.Val, depth+1) {
						return false
					}
				case *ssa.UnOp, *ssa.DebugRef:
				default:
					return false
				}
			}
		case *ssa.Store:
			if ref.Addr == addr && !w.own(ref.Val, depth+1) {
				return false
			}
			// stored as a value: into an own map, checked there
		case *ssa.MapUpdate:
			if ref.Value != addr {
				return false
			}
		case *ssa.UnOp, *ssa.DebugRef, *ssa.Return, *ssa.MakeInterface:
		case *ssa.MakeClosure:
			fn, ok := ref.Fn.(*ssa.Function)
			if !ok {
				return false
			}
			for i, b := range ref.Bindings {
				if b == addr && (i >= len(fn.FreeVars) || !w.literalUses(fn.FreeVars[i], depth, closures+1)) {
					return false
				}
			}
		case ssa.CallInstruction:
			if !w.sinkArgument(ref.Common(), addr) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// sinkArgument: c is a static call of the flush helper being judged, with
// v among its arguments but not as the receiver.
func (w *ownWalk) sinkArgument(c *ssa.CallCommon, v ssa.Value) bool {
	if w.sink == nil || c.IsInvoke() || c.StaticCallee() != w.sink {
		return false
	}
	if c.Signature().Recv() != nil && len(c.Args) > 0 && c.Args[0] == v {
		return false
	}
	return true
}

// ownChannel: ch is a channel a field of the receiver holds, which the
// package makes itself and sends only own input to, or hands out to others
// (a Chan() chan<- T accessor, the process's own readers sending on it).
func (w *ownWalk) ownChannel(ch ssa.Value) bool {
	if g := w.chanMap(ch); g != nil {
		return w.ownChanMap(g) // a package-level map of channels (ownchannels.go)
	}
	ld, ok := ch.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return w.ownSubscription(ch, 0, map[ssa.Value]bool{})
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return false
	}
	field := fieldOf(fa.X.Type(), fa.Field)
	if field == nil {
		return false
	}
	if done, ok := w.buffers[field]; ok {
		return done
	}
	w.buffers[field] = true // a send of what was received on it: decided by the other sends
	ok = w.ownChannelField(field)
	w.buffers[field] = ok
	return ok
}

func (w *ownWalk) ownChannelField(field *types.Var) bool {
	for _, v := range w.fl.stores[field] {
		switch v := v.(type) {
		case *ssa.MakeChan:
			continue
		case *ssa.Const:
			if v.IsNil() {
				continue
			}
		}
		return false // a channel made elsewhere (a consumer's, a subscription's)
	}
	fill := &ownWalk{r: w.r, fl: w.fl, seen: map[ssa.Value]bool{}, pure: w.pure, buffers: w.buffers, fill: true}
	filled := false
	for _, fn := range w.fl.funcs {
		if w.inTest(fn) {
			continue // a test's sends are not the deployed producers
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Send:
					if loadsField(in.Chan, field) {
						if !fill.own(in.X, 0) {
							return false // rows read, a store's answer: shared work
						}
						filled = true
					}
				case *ssa.Select:
					for _, st := range in.States {
						if st.Dir == types.SendOnly && loadsField(st.Chan, field) {
							if !fill.own(st.Send, 0) {
								return false
							}
							filled = true
						}
					}
				case *ssa.Return:
					for _, r := range in.Results {
						if loadsField(r, field) {
							filled = true
						}
					}
				}
			}
		}
	}
	return filled
}

// pointsToStruct: t is a pointer to a struct (a batch request).
func pointsToStruct(t types.Type) bool {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = p.Elem().Underlying().(*types.Struct)
	return ok
}
