package leadershiploss

import (
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// The loops of a function read from ConsumeClaim (session.go): what each
// block observes or waits on, the natural loops, the counted ones, and the
// report of a round that waits without passing anything that observes the
// session's end.

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
		if uses[l.header].observes || bounded(l) || !handlesMessage(fr.fn, l, loops, fr.message) {
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

// reachable returns the blocks reached from the given ones through next,
// entering only those ok accepts.
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
	if sc.collect {
		sc.found = append(sc.found, waits...)
		return
	}
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

// handlesMessage: an instruction of the loop, or of the code its exits
// lead to outside other loops (an ack branch that marks the message and
// leaves), works on a claimed message (an operand of the claim's message
// type): the loop is per-message work, not a goroutine's own ticker or a
// metrics loop started from ConsumeClaim.
func handlesMessage(fn *ssa.Function, l *loop, loops []*loop, message types.Type) bool {
	other := map[*ssa.BasicBlock]bool{} // blocks of loops that do not hold l
	for _, l2 := range loops {
		if l2 != l && !l2.body[l.header] {
			for b := range l2.body {
				other[b] = true
			}
		}
	}
	var exits []*ssa.BasicBlock
	for b := range l.body {
		for _, s := range b.Succs {
			if !l.body[s] {
				exits = append(exits, s)
			}
		}
	}
	var ops []*ssa.Value
	for _, b := range fn.Blocks {
		in := l.body[b]
		for _, e := range exits {
			if !in && !other[b] && e.Dominates(b) {
				in = true
			}
		}
		if !in {
			continue
		}
		for _, ins := range b.Instrs {
			for _, op := range ins.Operands(ops[:0]) {
				if *op != nil && types.Identical((*op).Type(), message) {
					return true
				}
			}
		}
	}
	return false
}
