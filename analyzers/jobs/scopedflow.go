package jobs

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// How a spawner ends the loop it starts, read from its control flow: a
// deferred close (or cancel) registered before the go statement, or a
// close (or cancel, or a defer of either) on every path from the go
// statement to a return. A path that returns without one leaves the loop
// running after the call, and so does a spawner that never returns (a
// loop of its own with no way out, select {}): the loop stays a job.
// Paths that panic are left aside (the process is going down, or a
// recover owns the rest).

// spawn is one go statement that starts the loop function.
type spawn struct {
	spawner *ssa.Function
	start   *ssa.Go
	arg     ssa.Value // the spawner's value the loop's exit parameter receives
	wrapped bool      // started through a closure that forwards arg
}

// spawnOf returns the spawn made by instruction in of function s, which
// uses target (the loop function, exit parameter at index): `go target(..)`
// directly, or a call of target in a closure that only forwards the
// spawner's value (`go func() { defer wg.Done(); target(stop) }()`). Any
// other use gives nil.
func spawnOf(s *ssa.Function, in ssa.Instruction, target *ssa.Function, index int) *spawn {
	switch in := in.(type) {
	case *ssa.Go:
		if in.Call.Value != target || index >= len(in.Call.Args) {
			return nil
		}
		v := valueAt(s, in.Call.Args[index], in)
		if v == nil {
			return nil
		}
		return &spawn{spawner: s, start: in, arg: v}
	case *ssa.Call:
		if in.Call.Value != target || index >= len(in.Call.Args) || s.Parent() == nil {
			return nil
		}
		g := closureStart(s)
		if g == nil || hasCycle(s) {
			return nil // a closure that loops restarts the loop after its stop
		}
		v := forwarded(s, in.Call.Args[index], g)
		if v == nil {
			return nil
		}
		return &spawn{spawner: s.Parent(), start: g, arg: v, wrapped: true}
	}
	return nil
}

// closureStart returns the go statement of its parent that starts closure
// s, when that is the closure's only use.
func closureStart(s *ssa.Function) *ssa.Go {
	var start *ssa.Go
	uses := 0
	for _, b := range s.Parent().Blocks {
		for _, in := range b.Instrs {
			var ops []*ssa.Value
			for _, op := range in.Operands(ops) {
				if op == nil || *op != s {
					continue
				}
				uses++
				switch in := in.(type) {
				case *ssa.Go:
					if in.Call.Value == s {
						start = in
					}
				case *ssa.MakeClosure:
					if refs := *in.Referrers(); len(refs) == 1 {
						if g, ok := refs[0].(*ssa.Go); ok && g.Call.Value == in {
							start = g
						}
					}
				}
			}
		}
	}
	if uses != 1 {
		return nil
	}
	return start
}

// forwarded returns the parent's value that closure s passes on as a: a
// parameter of the closure (the go statement's argument) or a captured
// variable (its value when the go statement runs).
func forwarded(s *ssa.Function, a ssa.Value, g *ssa.Go) ssa.Value {
	switch a := a.(type) {
	case *ssa.Parameter:
		for i, p := range s.Params {
			if p == a && i < len(g.Call.Args) {
				return valueAt(s.Parent(), g.Call.Args[i], g)
			}
		}
	case *ssa.UnOp:
		fv, ok := a.X.(*ssa.FreeVar)
		mc, isClosure := g.Call.Value.(*ssa.MakeClosure)
		if !ok || !isClosure {
			return nil
		}
		for i, f := range s.FreeVars {
			if f == fv && i < len(mc.Bindings) {
				v, store := cellValue(s.Parent(), mc.Bindings[i])
				if v != nil && dominates(store, g) {
					return v
				}
			}
		}
	}
	return nil
}

// valueAt returns what x holds at instruction at of fn: x itself, or for a
// load of a captured variable the value last stored to it before at.
func valueAt(fn *ssa.Function, x ssa.Value, at ssa.Instruction) ssa.Value {
	if ct, ok := x.(*ssa.ChangeType); ok {
		x = ct.X // chan T handed on as <-chan T
	}
	load, ok := x.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return x
	}
	v, store := cellValue(fn, load.X)
	if v == nil || !dominates(store, at) {
		return nil
	}
	return v
}

// cellValue returns the value a captured variable of fn keeps: the store
// after which no store to it follows, when there is one such store and the
// variable is only stored in fn, loaded, and captured by closures that only
// load it.
func cellValue(fn *ssa.Function, cell ssa.Value) (ssa.Value, *ssa.Store) {
	alloc, ok := cell.(*ssa.Alloc)
	if !ok || alloc.Parent() != fn {
		return nil, nil
	}
	var stores []*ssa.Store
	for _, r := range *alloc.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Addr != alloc || r.Val == alloc {
				return nil, nil
			}
			stores = append(stores, r)
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return nil, nil
			}
		case *ssa.MakeClosure:
			closure, _ := r.Fn.(*ssa.Function)
			if closure == nil {
				return nil, nil
			}
			for i, b := range r.Bindings {
				if b != alloc || i >= len(closure.FreeVars) {
					continue
				}
				for _, use := range *closure.FreeVars[i].Referrers() {
					if load, ok := use.(*ssa.UnOp); !ok || load.Op != token.MUL {
						return nil, nil // stored to, or captured again, inside
					}
				}
			}
		default:
			return nil, nil
		}
	}
	var last *ssa.Store
	for _, s := range stores {
		later := false
		for _, t := range stores {
			if reaches(s, t) {
				later = true
			}
		}
		if !later {
			if last != nil {
				return nil, nil // two last stores: which one holds depends on the path
			}
			last = s
		}
	}
	if last == nil {
		return nil, nil
	}
	return last.Val, last
}

// endedBy says how the spawner ends the loop's value when it returns: it
// closes the channel it made, or calls the cancel of the context it
// derived, before every return (see the top of this file), or "".
func (sp *spawn) endedBy(isCtx bool) string {
	what, deferred, onEveryPath := "closes the stop channel it passed", " (defer close)", " (close on every path)"
	closure := ""
	var ender, def ssa.Value // the cancel to call; the instruction defining arg
	if isCtx {
		what, deferred, onEveryPath = "cancels the context it passed", " (defer cancel())", " (cancel() on every path)"
		ex, ok := sp.arg.(*ssa.Extract)
		if !ok || ex.Index != 0 {
			return ""
		}
		call, ok := ex.Tuple.(*ssa.Call)
		if !ok {
			return ""
		}
		callee := call.Call.StaticCallee()
		if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "context" {
			return ""
		}
		for _, r := range *ex.Tuple.Referrers() {
			if e, ok := r.(*ssa.Extract); ok && e.Index == 1 {
				ender = e
			}
		}
		if ender == nil {
			return ""
		}
		def = call
	} else if _, ok := sp.arg.(*ssa.MakeChan); !ok {
		return ""
	} else {
		def = sp.arg
	}
	if sp.wrapped {
		closure = "; it starts the loop through a closure that passes the value on"
	}
	ends := func(c *ssa.CallCommon, onPath bool) bool {
		if isCtx {
			return len(c.Args) == 0 && sp.reads(c.Value, ender, onPath)
		}
		bi, ok := c.Value.(*ssa.Builtin)
		return ok && bi.Name() == "close" && len(c.Args) == 1 && sp.reads(c.Args[0], sp.arg, onPath)
	}
	// A defer registered on every path to the go statement.
	for b, n := sp.start.Block(), indexIn(sp.start); b != nil; b, n = b.Idom(), -1 {
		instrs := b.Instrs
		if n >= 0 {
			instrs = instrs[:n]
		}
		for _, in := range instrs {
			if d, ok := in.(*ssa.Defer); ok && ends(&d.Call, false) {
				return what + deferred + " when it returns" + closure
			}
		}
	}
	// Otherwise every path on from the go statement ends it before it
	// returns: a path that returns first, or makes the value anew (the
	// value of the next round, not this one), keeps the loop running.
	type from struct {
		b *ssa.BasicBlock
		i int
	}
	seen := map[*ssa.BasicBlock]bool{}
	region, endsHere := map[*ssa.BasicBlock]bool{}, map[*ssa.BasicBlock]bool{}
	work := []from{{sp.start.Block(), indexIn(sp.start) + 1}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		region[w.b] = true
		ended := false
	scan:
		for _, in := range w.b.Instrs[w.i:] {
			if v, ok := in.(ssa.Value); ok && v == def {
				return ""
			}
			switch in := in.(type) {
			case *ssa.Call:
				ended = ends(&in.Call, true)
			case *ssa.Defer:
				ended = ends(&in.Call, true)
			case *ssa.Panic:
				ended = true
			case *ssa.Select:
				if in.Blocking && len(in.States) == 0 {
					return "" // select {}: the spawner never returns, the loop never ends
				}
			}
			if ended {
				break scan
			}
		}
		if ended {
			endsHere[w.b] = true
			continue
		}
		for _, s := range w.b.Succs {
			if !seen[s] {
				seen[s] = true
				work = append(work, from{s, 0})
			}
		}
	}
	// A block that returns has no successor: it reaches no end. Nor does
	// a loop of the spawner's that never leaves (the loop it started runs
	// as long).
	if !allReach(region, endsHere) {
		return ""
	}
	return what + onEveryPath + " when it returns" + closure
}

// allReach: from every block of region, some path within it leads to a
// block of ends.
func allReach(region, ends map[*ssa.BasicBlock]bool) bool {
	good := map[*ssa.BasicBlock]bool{}
	for b := range ends {
		good[b] = true
	}
	for changed := true; changed; {
		changed = false
		for b := range region {
			if good[b] {
				continue
			}
			for _, s := range b.Succs {
				if good[s] {
					good[b], changed = true, true
					break
				}
			}
		}
	}
	for b := range region {
		if !good[b] {
			return false
		}
	}
	return true
}

// reads: x is want, or a load of a captured variable whose value is want.
// A load on a path from the go statement reads the variable's last store
// (it precedes the go statement and none follows); a load before it must
// come after that store.
func (sp *spawn) reads(x, want ssa.Value, onPath bool) bool {
	if x == want {
		return true
	}
	load, ok := x.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	v, store := cellValue(sp.spawner, load.X)
	return v == want && (onPath || dominates(store, load))
}

// dominates: a runs before b on every path to b.
func dominates(a, b ssa.Instruction) bool {
	if a.Block() == b.Block() {
		return indexIn(a) < indexIn(b)
	}
	return a.Block().Dominates(b.Block())
}

// reaches: some path runs b after a.
func reaches(a, b ssa.Instruction) bool {
	if a.Block() == b.Block() && indexIn(a) < indexIn(b) {
		return true
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := append([]*ssa.BasicBlock(nil), a.Block().Succs...)
	for len(work) > 0 {
		blk := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[blk] {
			continue
		}
		if blk == b.Block() {
			return true
		}
		seen[blk] = true
		work = append(work, blk.Succs...)
	}
	return false
}

func indexIn(in ssa.Instruction) int {
	for i, x := range in.Block().Instrs {
		if x == in {
			return i
		}
	}
	return -1
}

// hasCycle: fn's control flow has a loop.
func hasCycle(fn *ssa.Function) bool {
	const (
		open = 1
		done = 2
	)
	state := map[*ssa.BasicBlock]int{}
	var visit func(*ssa.BasicBlock) bool
	visit = func(b *ssa.BasicBlock) bool {
		state[b] = open
		for _, s := range b.Succs {
			if state[s] == open || state[s] == 0 && visit(s) {
				return true
			}
		}
		state[b] = done
		return false
	}
	return len(fn.Blocks) > 0 && visit(fn.Blocks[0])
}
