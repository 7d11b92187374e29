package leadershiploss

// The loop around a renewal, read in SSA: whether it is paced by time, what
// is cancelled once it is left, and whether a watchdog timer ends the work
// at the current expiry whatever the renewal does (renewdeadline.go).

import (
	"go/constant"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ssa"
)

// pacing reports whether the call's block lies on a cycle of its function
// that waits for time (time.Sleep, a receive from a timer's or ticker's
// channel or time.After, also in a select), and the wait when it is one
// constant (0 otherwise).
func pacing(call *ssa.Call) (bool, time.Duration) {
	b := call.Block()
	loop := map[*ssa.BasicBlock]bool{}
	from := blocksAfter(b, true)
	for blk := range from {
		if blocksAfter(blk, true)[b] {
			loop[blk] = true
		}
	}
	if !loop[b] {
		return false, 0
	}
	paced := false
	var waits []ssa.Value
	for blk := range loop {
		for _, in := range blk.Instrs {
			switch in := in.(type) {
			case *ssa.Call:
				if f := funcOf(in.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "time" && f.Name() == "Sleep" {
					paced = true
					waits = append(waits, in.Call.Args[0])
				}
			case *ssa.UnOp:
				if w, ok := timerChan(in.X); in.Op == token.ARROW && ok {
					paced = true
					waits = append(waits, w)
				}
			case *ssa.Select:
				for _, s := range in.States {
					if w, ok := timerChan(s.Chan); s.Dir == types.RecvOnly && ok {
						paced = true
						waits = append(waits, w)
					}
				}
			}
		}
	}
	var every time.Duration
	if len(waits) == 1 {
		every, _ = constDuration(waits[0])
	}
	return paced, every
}

// constDuration returns the value of a constant time.Duration.
func constDuration(v ssa.Value) (time.Duration, bool) {
	k, ok := v.(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int {
		return 0, false
	}
	n, ok := types.Unalias(k.Type()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "time" || n.Obj().Name() != "Duration" {
		return 0, false
	}
	d, exact := constant.Int64Val(k.Value)
	return time.Duration(d), exact
}

// blocksAfter returns the blocks reachable from b (b itself when it lies on
// a cycle, or always when self is false).
func blocksAfter(b *ssa.BasicBlock, self bool) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{}
	if !self {
		seen[b] = true
	}
	work := append([]*ssa.BasicBlock{}, b.Succs...)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		work = append(work, x.Succs...)
	}
	return seen
}

// timerChan: the C of a *time.Timer or *time.Ticker, or time.After or
// time.Tick; with the wait it was made with when in sight (nil otherwise).
func timerChan(v ssa.Value) (ssa.Value, bool) {
	switch v := v.(type) {
	case *ssa.Call:
		f := funcOf(v.Common())
		if f != nil && f.Pkg() != nil && f.Pkg().Path() == "time" && (f.Name() == "After" || f.Name() == "Tick") {
			return v.Call.Args[0], true
		}
	case *ssa.UnOp:
		fa, ok := v.X.(*ssa.FieldAddr)
		if !ok || v.Op != token.MUL {
			return nil, false
		}
		st, ok := fa.X.Type().Underlying().(*types.Pointer)
		if !ok {
			return nil, false
		}
		n, ok := types.Unalias(st.Elem()).(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "time" || (n.Obj().Name() != "Timer" && n.Obj().Name() != "Ticker") {
			return nil, false
		}
		s, ok := n.Underlying().(*types.Struct)
		if !ok || s.Field(fa.Field).Name() != "C" {
			return nil, false
		}
		var wait ssa.Value
		if mk, ok := fa.X.(*ssa.Call); ok {
			if f := funcOf(mk.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "time" && (f.Name() == "NewTimer" || f.Name() == "NewTicker") {
				wait = mk.Call.Args[0]
			}
		}
		return wait, true
	}
	return nil, false
}

// cancelAfter returns a call of a context.CancelFunc (or a close of a
// channel) that the function can reach after call: the work is stopped
// once the renewal loop is left.
func cancelAfter(call, bound *ssa.Call) ssa.CallInstruction {
	b := call.Block()
	blocks := blocksAfter(b, false)
	returns := false
	for blk := range blocks {
		for _, in := range blk.Instrs {
			switch in := in.(type) {
			case *ssa.Return, *ssa.RunDefers:
				returns = true
			case *ssa.Defer:
				// deferred after the renewal: runs on the way out
			case ssa.CallInstruction:
				if stops(in.Common()) && !cancelOf(in.Common().Value, bound, 0) {
					if blk == b && in.Pos() < call.Pos() && !blocksAfter(b, true)[b] {
						continue
					}
					return in
				}
			}
		}
	}
	if !returns {
		return nil
	}
	// a deferred cancel runs when the function returns after the renewal
	for _, blk := range call.Parent().Blocks {
		for _, in := range blk.Instrs {
			if d, ok := in.(*ssa.Defer); ok && stops(d.Common()) && !cancelOf(d.Common().Value, bound, 0) {
				return d
			}
		}
	}
	return nil
}

// cancelOf: v is the cancel func the bound call returned (the renewal's
// own context released), not the work's.
func cancelOf(v ssa.Value, bound *ssa.Call, depth int) bool {
	switch v := v.(type) {
	case *ssa.Extract:
		return v.Tuple == bound && v.Index == 1
	case *ssa.Phi:
		if depth > 3 {
			return false
		}
		for _, e := range v.Edges {
			if cancelOf(e, bound, depth+1) {
				return true
			}
		}
	case *ssa.MakeClosure:
		// defer cancel() of a local: the closure binds the cancel
		for _, b := range v.Bindings {
			if cancelOf(b, bound, depth+1) {
				return true
			}
		}
	}
	return false
}

// stops: a call of a context.CancelFunc or CancelCauseFunc value, or the
// builtin close.
func stops(cc *ssa.CallCommon) bool {
	if bi, ok := cc.Value.(*ssa.Builtin); ok {
		return bi.Name() == "close"
	}
	return !cc.IsInvoke() && cc.StaticCallee() == nil && isCancelFunc(cc.Value.Type())
}

func isCancelFunc(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && (n.Obj().Name() == "CancelFunc" || n.Obj().Name() == "CancelCauseFunc")
}

// expiryWatchdog: fn arms a time.AfterFunc whose function cancels (a
// cancel func, or a function literal that calls one or closes a channel),
// and the timer is re-armed (Reset) or never stopped: it ends the work at
// the expiry it was armed for whatever the renewal does. A timer stopped
// once the lock is held, and never reset, guards nothing after that.
func expiryWatchdog(ix *deadlineIndex, fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok {
				continue
			}
			f := funcOf(call.Common())
			if f == nil || f.Pkg() == nil || f.Pkg().Path() != "time" || f.Name() != "AfterFunc" || len(call.Call.Args) != 2 || !cancels(call.Call.Args[1]) {
				continue
			}
			stopped, reset := timerUses(ix, call)
			if reset || !stopped {
				return true
			}
		}
	}
	return false
}

// cancels: v is a cancel func, or a function whose body calls one or
// closes a channel.
func cancels(v ssa.Value) bool {
	if ct, ok := v.(*ssa.ChangeType); ok {
		v = ct.X // a cancel func passed as a func()
	}
	if isCancelFunc(v.Type()) {
		return true
	}
	var body *ssa.Function
	switch v := v.(type) {
	case *ssa.MakeClosure:
		body, _ = v.Fn.(*ssa.Function)
	case *ssa.Function:
		body = v
	}
	if body == nil {
		return false
	}
	for _, b := range body.Blocks {
		for _, in := range b.Instrs {
			if ci, ok := in.(ssa.CallInstruction); ok && stops(ci.Common()) {
				return true
			}
		}
	}
	return false
}

// timerUses reports whether the timer AfterFunc returned is stopped and
// whether it is reset, anywhere in the package: through the value itself
// or a variable, field or package variable it is stored to.
func timerUses(ix *deadlineIndex, timer *ssa.Call) (stopped, reset bool) {
	keys := map[any]bool{}
	for _, r := range *timer.Referrers() {
		if s, ok := r.(*ssa.Store); ok && s.Val == timer {
			if k := storageKey(s.Addr); k != nil {
				keys[k] = true
			}
		}
	}
	is := func(v ssa.Value) bool {
		if fv, ok := v.(*ssa.FreeVar); ok {
			v = ix.bindings[fv]
		}
		if v == timer {
			return true
		}
		if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
			k := storageKey(u.X)
			return k != nil && keys[k]
		}
		return false
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok {
					continue
				}
				f := funcOf(ci.Common())
				if f == nil || f.Pkg() == nil || f.Pkg().Path() != "time" || len(ci.Common().Args) == 0 || !is(ci.Common().Args[0]) {
					continue
				}
				switch f.Name() {
				case "Stop":
					stopped = true
				case "Reset":
					reset = true
				}
			}
		}
	}
	return stopped, reset
}
