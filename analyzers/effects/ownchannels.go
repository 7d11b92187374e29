package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Two more shapes of a per-replica batch flush (ownbatch.go, chanbatch.go),
// each read by SSA value flow:
//
//   - a channel a package-level map of this package holds (buffers[name] =
//     make(chan T, n)): every store of the variable is a fresh empty map,
//     every value put into the map is a fresh make(chan) (or nil), every
//     channel taken out of it is only sent to, received from, measured or
//     closed where it was taken (never stored, bound into a closure or
//     handed to a call, where a send would not be seen), and every send
//     into one, anywhere in the package, carries own input or what was
//     received on another own channel (a drain of the target's own queue
//     into its migration buffer). The map is the process's memory, as a
//     channel field is;
//   - a payload that is the bytes of a buffer object a dependency hands
//     out (a pool's Get, bytes.NewBuffer): the buffer is written only
//     through calls of packages that reach nothing outside the process
//     (pureDependency: an encoder it is wrapped in, its own Reset), each
//     handed only own data besides the buffer itself (an entry received on
//     an own channel). A buffer stored away, handed to this package's code
//     or to a package that reaches a network or a store, may carry shared
//     data: not shown own.

// chanMap: the package-level variable of this package whose map ch was
// looked up in (m[k], or the first value of v, ok := m[k]), nil when ch is
// no such lookup.
func (w *ownWalk) chanMap(ch ssa.Value) *ssa.Global {
	if ex, ok := ch.(*ssa.Extract); ok && ex.Index == 0 {
		ch = ex.Tuple
	}
	lk, ok := ch.(*ssa.Lookup)
	if !ok {
		return nil
	}
	return w.loadsChanMap(lk.X)
}

// loadsChanMap: x loads a package-level map of channels of this package.
func (w *ownWalk) loadsChanMap(x ssa.Value) *ssa.Global {
	ld, ok := x.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil
	}
	g, ok := ld.X.(*ssa.Global)
	if !ok || g.Pkg == nil || g.Pkg.Pkg != w.r.pass.Pkg {
		return nil
	}
	m, ok := g.Type().(*types.Pointer).Elem().Underlying().(*types.Map)
	if !ok {
		return nil
	}
	if _, ok := m.Elem().Underlying().(*types.Chan); !ok {
		return nil
	}
	return g
}

// ownChanMap: every channel the map g holds is made by the package and
// fed only own input (see the comment at the top of the file).
func (w *ownWalk) ownChanMap(g *ssa.Global) bool {
	key, _ := g.Object().(*types.Var)
	if key == nil {
		return false
	}
	if done, ok := w.buffers[key]; ok {
		return done
	}
	w.buffers[key] = true // a send of what was received on it: decided by the other sends
	ok := w.ownChanMapBody(g)
	w.buffers[key] = ok
	return ok
}

func (w *ownWalk) ownChanMapBody(g *ssa.Global) bool {
	for _, v := range w.fl.stores[g] {
		if mm, ok := v.(*ssa.MakeMap); !ok || !emptyMap(mm) {
			return false // a map made elsewhere or filled first
		}
	}
	fill := &ownWalk{r: w.r, fl: w.fl, seen: map[ssa.Value]bool{}, pure: w.pure, buffers: w.buffers, fill: true}
	filled := false
	for _, fn := range w.fl.funcs {
		if w.inTest(fn) {
			continue // a test's sends are not the deployed producers
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if st, ok := in.(*ssa.Store); ok && st.Addr == g && st.Val != g {
					continue // judged above
				}
				if ld, ok := in.(*ssa.UnOp); ok && ld.Op == token.MUL && ld.X == g {
					ok, sent := fill.chanMapLoad(ld)
					if !ok {
						return false
					}
					filled = filled || sent
					continue
				}
				for _, op := range in.Operands(nil) {
					if *op == g {
						return false // its address handed on: filled unseen
					}
				}
			}
		}
	}
	return filled
}

// chanMapLoad: every use of the loaded map is a lookup whose channel is
// used in place, an update with a fresh channel, a range, len or delete;
// sent reports a send of own input into one of its channels.
func (w *ownWalk) chanMapLoad(m *ssa.UnOp) (ok, sent bool) {
	if m.Referrers() == nil {
		return true, false
	}
	for _, ref := range *m.Referrers() {
		switch ref := ref.(type) {
		case *ssa.MapUpdate:
			if ref.Map != m {
				return false, false
			}
			switch v := ref.Value.(type) {
			case *ssa.MakeChan:
			case *ssa.Const:
				if !v.IsNil() {
					return false, false
				}
			default:
				return false, false // a channel made elsewhere (a consumer's)
			}
		case *ssa.Lookup:
			ok, s := w.chanUsedInPlace(ref, 0)
			if !ok {
				return false, false
			}
			sent = sent || s
		case *ssa.DebugRef:
		case *ssa.Call:
			bi, isBuiltin := ref.Call.Value.(*ssa.Builtin)
			if !isBuiltin || bi.Name() != "delete" && bi.Name() != "len" {
				return false, false
			}
		default:
			return false, false // handed on: its channels may be sent to unseen
		}
	}
	return true, sent
}

// chanUsedInPlace: the channel ch (or the tuple of a comma-ok lookup) is
// only sent own input, received from, measured or closed; sent reports a
// send.
func (w *ownWalk) chanUsedInPlace(ch ssa.Value, depth int) (ok, sent bool) {
	if ch.Referrers() == nil || depth > 1 {
		return depth == 0, false
	}
	for _, ref := range *ch.Referrers() {
		switch ref := ref.(type) {
		case *ssa.Extract:
			if ref.Index != 0 {
				continue // the comma-ok flag
			}
			ok, s := w.chanUsedInPlace(ref, depth+1)
			if !ok {
				return false, false
			}
			sent = sent || s
		case *ssa.Send:
			if ref.Chan != ch || !w.own(ref.X, 0) {
				return false, false // rows read, a store's answer: shared work
			}
			sent = true
		case *ssa.Select:
			for _, st := range ref.States {
				if st.Chan != ch {
					if st.Send == ch {
						return false, false
					}
					continue
				}
				if st.Dir == types.SendOnly {
					if !w.own(st.Send, 0) {
						return false, false
					}
					sent = true
				}
			}
		case *ssa.UnOp:
			if ref.Op != token.ARROW {
				return false, false
			}
		case *ssa.Call:
			bi, isBuiltin := ref.Call.Value.(*ssa.Builtin)
			if !isBuiltin || bi.Name() != "len" && bi.Name() != "cap" && bi.Name() != "close" {
				return false, false
			}
		case *ssa.DebugRef:
		default:
			return false, false // stored, bound into a closure or handed to a call
		}
	}
	return true, sent
}

// spawnsItself: call is a static call (go h.worker(ctx, false)) of the
// function whose body holds it: a loop that starts more workers of itself
// when its queue fills. The copy runs the same body, whose sends the other
// calls of the job are judged by; it adds no payload of its own.
func (fl *flow) spawnsItself(call *ast.CallExpr) bool {
	c := fl.common(call)
	if c == nil || c.IsInvoke() {
		return false
	}
	g := c.StaticCallee()
	if g == nil || g.Syntax() == nil {
		return false
	}
	body := g.Syntax()
	return body.Pos() <= call.Pos() && call.End() <= body.End()
}
