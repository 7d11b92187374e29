package leadershiploss

import (
	"fmt"
	"go/types"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// BlindLoop is exported for a function of a package that imports a
// consumer-group library: given a claimed message (a parameter of the
// claim's message type), it runs a loop that can repeat for that message
// without end and observes nothing of the session's end, except through its
// context parameter Ctx (counting from 0 after the receiver; -1: not even
// that). A ConsumeClaim in another package that hands it the message and,
// at Ctx, a context known to be detached from the session is reported at
// the call.
type BlindLoop struct {
	Ctx int
	At  string // the loop's first wait, package path/file:line
}

// AFact marks BlindLoop as a fact.
func (*BlindLoop) AFact() {}

func (f *BlindLoop) String() string { return fmt.Sprintf("blind loop (ctx %d)", f.Ctx) }

// exportBlindLoops reads each function of the package that takes a claimed
// message twice: with its context parameters detached and with them
// unknown. A loop found blind both ways ignores any context (Ctx -1); one
// found only the first way is blind when the caller's context is detached.
func (sc *sessionCheck) exportBlindLoops(messages []types.Type) {
	for _, fn := range sc.funcs {
		obj, _ := fn.Object().(*types.Func)
		if fn.Parent() != nil || obj == nil || !obj.Exported() || obj.Pkg() != sc.c.p.Pkg || len(fn.Blocks) == 0 {
			continue
		}
		message := messageParam(obj, messages)
		if message == nil {
			continue
		}
		recv := 0
		if fn.Signature.Recv() != nil {
			recv = 1
		}
		ctx := -1
		detached := &frame{fn: fn, roles: map[ssa.Value]role{}, message: message}
		for i, p := range fn.Params[recv:] {
			if isContext(p.Type()) {
				detached.roles[p] = roleDetached
				if ctx < 0 {
					ctx = i
				}
			}
		}
		found := sc.collectLoops(detached, obj)
		if len(found) == 0 {
			continue
		}
		if ctx >= 0 && len(sc.collectLoops(&frame{fn: fn, roles: map[ssa.Value]role{}, message: message}, obj)) > 0 {
			ctx = -1 // blind whatever context it is given
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Pos() < found[j].Pos() })
		at := sc.c.p.Fset.Position(found[0].Pos())
		where := fmt.Sprintf("%s/%s:%d", sc.c.p.Pkg.Path(), filepath.Base(at.Filename), at.Line)
		sc.c.p.ExportObjectFact(obj, &BlindLoop{Ctx: ctx, At: where})
	}
}

// collectLoops returns the waits report would mark, reading fr and what it
// calls, without reporting.
func (sc *sessionCheck) collectLoops(fr *frame, fn *types.Func) []ssa.Instruction {
	sc.collect, sc.found, sc.handler = true, nil, fn
	sc.walk(fr, map[*ssa.Function]bool{}, 0)
	found := sc.found
	sc.collect, sc.found = false, nil
	return found
}

// messageParam returns the claim message type one of fn's parameters has.
func messageParam(fn *types.Func, messages []types.Type) types.Type {
	params := fn.Type().(*types.Signature).Params()
	for i := 0; i < params.Len(); i++ {
		for _, m := range messages {
			if types.Identical(params.At(i).Type(), m) {
				return m
			}
		}
	}
	return nil
}

// importedBlind reports a call from ConsumeClaim's reach of another
// package's function with a BlindLoop fact, when the call hands it a
// detached context (or the loop ignores any).
func (sc *sessionCheck) importedBlind(fr *frame, com *ssa.CallCommon, callee *ssa.Function, at ssa.Instruction) {
	obj, _ := callee.Object().(*types.Func)
	if obj == nil || obj.Pkg() == sc.c.p.Pkg || sc.collect {
		return
	}
	var f BlindLoop
	if !sc.c.p.ImportObjectFact(obj, &f) {
		return
	}
	how := "observes neither the session's context nor the claim"
	if f.Ctx >= 0 {
		i := f.Ctx
		if callee.Signature.Recv() != nil {
			i++
		}
		if i >= len(com.Args) || !sc.detachedCtx(fr, com.Args[i], 0) {
			return
		}
		how = "is handed a context that is not derived from the session's"
	}
	if !at.Pos().IsValid() || sc.reported[at.Pos()] {
		return
	}
	sc.reported[at.Pos()] = true
	name := "ConsumeClaim"
	if sc.handler != nil {
		name = sc.handler.Name()
	}
	sc.c.p.Reportf(posNode(at.Pos()), nil,
		"%s.%s, called here from %s, runs a loop that can repeat for one claimed message without end (%s) and %s: after a rebalance ends the consumer-group session, this member keeps working the partition that another member now owns; hand it a context derived from sess.Context()",
		obj.Pkg().Name(), obj.Name(), name, f.At, how)
}
