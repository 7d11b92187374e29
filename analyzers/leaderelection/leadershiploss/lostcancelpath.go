package leadershiploss

// The paths of lostcancel.go: from the return of the lease maintenance to
// where the function goes on with the work running.

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// uncancelledPath: the first instruction, on some path from mc's return
// that stops nothing, where the function goes on with the work running: a
// block dominating mc (the loop's head) or an unbounded wait. A branch on
// mc's error is followed on its failing side only (a nil return means the
// maintainer's context ended, the work's with it).
func (c *checker) uncancelledPath(mc *ssa.Call, stoppers map[ssa.Value]bool) ssa.Instruction {
	errV := errorOf(mc)
	seen := map[*ssa.BasicBlock]bool{}
	type item struct {
		b    *ssa.BasicBlock
		from int
	}
	start := 0
	for i, in := range mc.Block().Instrs {
		if in == ssa.Instruction(mc) {
			start = i + 1
		}
	}
	work := []item{{mc.Block(), start}}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		b := it.b
		if it.from == 0 {
			if seen[b] {
				continue
			}
			seen[b] = true
			if b.Dominates(mc.Block()) {
				return firstPos(b)
			}
		}
		stopped := false
		for _, in := range b.Instrs[it.from:] {
			if c.stopsPath(in, stoppers) {
				stopped = true
				break
			}
			if unboundedWait(in) {
				return in
			}
		}
		if stopped {
			continue
		}
		succs := b.Succs
		if ifs, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok && errV != nil {
			if side := failingSide(ifs, errV); side >= 0 {
				succs = []*ssa.BasicBlock{b.Succs[side]}
			}
		}
		for _, s := range succs {
			work = append(work, item{s, 0})
		}
	}
	return nil
}

// firstPos: the block's first instruction with a position (else its
// first).
func firstPos(b *ssa.BasicBlock) ssa.Instruction {
	for _, in := range b.Instrs {
		if in.Pos().IsValid() {
			return in
		}
	}
	return b.Instrs[0]
}

// errorOf: mc's error result, when it has one.
func errorOf(mc *ssa.Call) ssa.Value {
	switch t := mc.Type().(type) {
	case *types.Tuple:
		for _, in := range refs(mc) {
			if ex, ok := in.(*ssa.Extract); ok && isErrorType(t.At(ex.Index).Type()) {
				return ex
			}
		}
	default:
		if isErrorType(t) {
			return mc
		}
	}
	return nil
}

// failingSide: the successor of ifs taken when errV is not nil (a test
// errV != nil or errV == nil), else -1.
func failingSide(ifs *ssa.If, errV ssa.Value) int {
	bin, ok := ifs.Cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return -1
	}
	isNil := func(v ssa.Value) bool {
		k, ok := v.(*ssa.Const)
		return ok && k.Value == nil
	}
	if !(bin.X == errV && isNil(bin.Y) || bin.Y == errV && isNil(bin.X)) {
		return -1
	}
	if bin.Op == token.NEQ {
		return 0
	}
	return 1
}

// stopsPath: the instruction ends the work's path: it returns, panics,
// calls a cancel of the term (or a closure capturing one), a function
// value, os.Exit or log.Fatal, a function of the package that may stop
// the work, sends or closes (the loss handed on), or clears a flag (false
// stored in a field or package variable the work may read).
func (c *checker) stopsPath(in ssa.Instruction, stoppers map[ssa.Value]bool) bool {
	switch in := in.(type) {
	case *ssa.Return, *ssa.Panic, *ssa.Send:
		return true
	case *ssa.Store:
		// a flag cleared (leading = false) that the work may check
		switch in.Addr.(type) {
		case *ssa.FieldAddr, *ssa.Global:
			k, ok := in.Val.(*ssa.Const)
			return ok && k.Value != nil && k.Value.Kind() == constant.Bool && !constant.BoolVal(k.Value)
		}
	case *ssa.Call:
		cc := &in.Call
		if cc.IsInvoke() {
			return false
		}
		if b, ok := cc.Value.(*ssa.Builtin); ok {
			return b.Name() == "close" || b.Name() == "panic"
		}
		callee := cc.StaticCallee()
		if callee == nil {
			return true // a function value: a cancel, or anything
		}
		if mk, ok := cc.Value.(*ssa.MakeClosure); ok {
			for _, bd := range mk.Bindings {
				if stoppers[bd] {
					return true
				}
			}
		}
		fn, _ := callee.Object().(*types.Func)
		if fn == nil {
			return callee.Parent() != nil // a closure: may cancel
		}
		if fn.Pkg() != nil {
			switch path, name := fn.Pkg().Path(), fn.Name(); {
			case path == "os" && name == "Exit", path == "log" && (name == "Fatal" || name == "Fatalf" || name == "Fatalln" || name == "Panic" || name == "Panicf"):
				return true
			}
		}
		if d := c.decls[fn.Origin()]; d != nil && d.Body != nil && c.stopsOnFailure(d, 1) {
			return true
		}
	}
	return false
}

// unboundedWait: a blocking select or a receive that waits on a channel
// not of a timer (time.After, a Timer's or Ticker's C): the function
// blocks, with the work running, until something else happens.
func unboundedWait(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.Select:
		if !in.Blocking {
			return false
		}
		for _, st := range in.States {
			if st.Dir == types.RecvOnly && !isTimer(st.Chan) {
				return true
			}
		}
	case *ssa.UnOp:
		return in.Op == token.ARROW && !isTimer(in.X)
	}
	return false
}

func isTimer(ch ssa.Value) bool {
	_, ok := timerChan(ch)
	return ok
}
