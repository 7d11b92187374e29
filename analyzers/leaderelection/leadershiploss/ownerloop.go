package leadershiploss

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/signals"
)

// Leadership by ring ownership, re-checked every round and failing open.
//
// A replica elects itself by asking a hash ring who owns a fixed key (the
// knowledge base's owner-lookup kind: dskit's ring.Get) on every round of
// a loop: when the answer names it, it makes a cancellable context and
// starts the leader's goroutines on it; when it names another, it calls
// that cancel. That start-and-stop pair on the two sides of one test of
// the answer is what shows the lookup to be an election; the lookup alone
// (sharding, a read) or a decision that stops nothing gives no report.
// When the lookup fails and the round only logs and goes on to the next,
// the work already started keeps running: a replica cut off from the ring
// (its heartbeats fail, so the others see it unhealthy and hand the key to
// another) keeps the leader's work going beside the new owner. Silent
// when the failing branch does anything but log (a cancel, a flag, a
// call of other code: failure.go's reading) or returns (the failure is
// handed to the caller).

// checkOwnerLoops reports the ring lookups of files that elect a leader in
// a loop and whose failure reaches nothing.
func (c *checker) checkOwnerLoops(files []*ast.File) {
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	if eff == nil {
		return
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn := c.callee(call); fn != nil && leadership.Kind(c.p.KB, fn, "owner-lookup") != nil {
				c.ownerLoop(eff, call)
			}
			return true
		})
	}
}

// ownerElection is the proof that a lookup elects: the test of its answer
// whose one side starts work on a cancellable context and whose other side
// calls that cancel.
type ownerElection struct {
	start ssa.Instruction // a goroutine started (or the context made) when this replica owns the key
	stop  *ssa.Call       // the cancel called when another one does
}

func (c *checker) ownerLoop(eff *effects.Result, call *ast.CallExpr) {
	sc := eff.CallValue(call)
	if sc == nil || sc.Block() == nil {
		return
	}
	tup, ok := sc.Type().(*types.Tuple)
	if !ok {
		return
	}
	var errV, answer ssa.Value
	for _, in := range refs(sc) {
		ex, ok := in.(*ssa.Extract)
		if !ok {
			continue
		}
		if isErrorType(tup.At(ex.Index).Type()) {
			errV = ex
		} else {
			answer = ex
		}
	}
	if errV == nil || answer == nil {
		return // the error discarded or the answer unread: unknown
	}
	el := electionOn(answer)
	if el == nil {
		return
	}
	r := &reader{c: c, fn: sc.Parent(), sc: sc, seen: map[ssa.Value]bool{}}
	r.value(errV, 0)
	if r.unknown || len(r.tests) == 0 {
		return
	}
	for _, t := range r.tests {
		if r.regionReaches(t.block, t.fail) {
			return
		}
	}
	if r.returns {
		// the failure is handed to the caller, which may stop the work
		// (also a lookup made once, outside a loop: its failing branch
		// can only return, or go on to code that may stop the work)
		return
	}
	related := []analysis.RelatedInformation{}
	if t := r.tests[0]; t.pos.IsValid() {
		related = append(related, rule.Related(posNode(t.pos), "the failed lookup is only logged; the loop goes on to the next round"))
	}
	related = append(related,
		rule.Related(posNode(el.start.Pos()), "leader work started when this replica owns the key"),
		rule.Related(posNode(el.stop.Pos()), "and stopped only when the lookup succeeds and names another owner"))
	name := calleeName(call)
	if fn := c.callee(call); fn != nil {
		name = fn.Pkg().Name() + "." + signals.RecvName(fn) + "." + fn.Name()
	}
	c.p.Reportf(call, related,
		"the ring lookup %s elects this replica (the owner of the key starts the work, another owner stops it), but when the lookup fails the round only logs and goes on, leaving the work running: a replica cut off from the ring keeps working while the others give the key to a new owner, so on N replicas two leaders act at once; on a failed lookup stop the work as if another replica owned the key, or hold a lease",
		name)
}

// electionOn finds a test of a value derived from the lookup's answer whose
// one successor (entered only from the test) makes a cancellable context,
// and whose other successor calls that context's cancel. The goroutine
// started on the context, when in sight, is the start shown in the report
// (a Start method may start it inside).
func electionOn(answer ssa.Value) *ownerElection {
	for _, ifs := range testsOf(answer) {
		b := ifs.Block()
		for side := 0; side < 2; side++ {
			own, other := b.Succs[side], b.Succs[1-side]
			if len(own.Preds) != 1 || len(other.Preds) != 1 {
				continue
			}
			cancels, start := startsCancellable(own)
			if stop := callsCancel(other, cancels); stop != nil {
				return &ownerElection{start: start, stop: stop}
			}
		}
	}
	return nil
}

// maxDerive bounds the values followed from the lookup's answer.
const maxDerive = 128

// testsOf: the branches whose condition is computed from v (the owners'
// addresses read, indexed, compared with this replica's own, or handed to
// a method such as Includes).
func testsOf(v ssa.Value) []*ssa.If {
	var out []*ssa.If
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	for len(work) > 0 && len(seen) < maxDerive {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, in := range refs(x) {
			switch u := in.(type) {
			case *ssa.If:
				out = append(out, u)
			case *ssa.Call, *ssa.Extract, *ssa.Index, *ssa.IndexAddr, *ssa.UnOp, *ssa.BinOp,
				*ssa.Phi, *ssa.Field, *ssa.FieldAddr, *ssa.ChangeType, *ssa.Slice:
				work = append(work, u.(ssa.Value))
			}
		}
	}
	return out
}

// dominated: the blocks the entry dominates, in the function's order.
func dominated(entry *ssa.BasicBlock) []*ssa.BasicBlock {
	var out []*ssa.BasicBlock
	for _, b := range entry.Parent().Blocks {
		if entry.Dominates(b) {
			out = append(out, b)
		}
	}
	return out
}

// startsCancellable: the cancel functions made (context.WithCancel and its
// kin) in the blocks entry dominates, and the first goroutine started there
// (else the first context made).
func startsCancellable(entry *ssa.BasicBlock) (map[ssa.Value]bool, ssa.Instruction) {
	cancels := map[ssa.Value]bool{}
	var start, made ssa.Instruction
	for _, b := range dominated(entry) {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Go:
				if start == nil {
					start = in
				}
			case *ssa.Call:
				if !makesCancel(&in.Call) {
					continue
				}
				if made == nil {
					made = in
				}
				for _, x := range refs(in) {
					if ex, ok := x.(*ssa.Extract); ok && ex.Index == 1 {
						cancels[ex] = true
					}
				}
			}
		}
	}
	if len(cancels) == 0 {
		return nil, nil
	}
	if start == nil {
		start = made
	}
	return cancels, start
}

func makesCancel(call *ssa.CallCommon) bool {
	fn := calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
		return false
	}
	switch fn.Name() {
	case "WithCancel", "WithCancelCause", "WithTimeout", "WithDeadline":
		return true
	}
	return false
}

// callsCancel: a call, in the blocks entry dominates, of a function value
// that is one of the cancels (through phis, or stored in a variable or a
// field and loaded back).
func callsCancel(entry *ssa.BasicBlock, cancels map[ssa.Value]bool) *ssa.Call {
	for _, b := range dominated(entry) {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok || call.Call.IsInvoke() || call.Call.StaticCallee() != nil {
				continue
			}
			if isCancel(call.Call.Value, cancels, map[ssa.Value]bool{}) {
				return call
			}
		}
	}
	return nil
}

func isCancel(v ssa.Value, cancels map[ssa.Value]bool, seen map[ssa.Value]bool) bool {
	if cancels[v] {
		return true
	}
	if seen[v] || len(seen) > maxDerive {
		return false
	}
	seen[v] = true
	switch v := v.(type) {
	case *ssa.Phi:
		for _, e := range v.Edges {
			if isCancel(e, cancels, seen) {
				return true
			}
		}
	case *ssa.UnOp:
		// a load: a cancel kept in a captured variable or in a field
		for _, st := range storesTo(v.X) {
			if isCancel(st.Val, cancels, seen) {
				return true
			}
		}
	}
	return false
}

// storesTo: the stores to the address (the same variable, or the same
// field of the same value).
func storesTo(addr ssa.Value) []*ssa.Store {
	var out []*ssa.Store
	collect := func(a ssa.Value) {
		for _, in := range refs(a) {
			if st, ok := in.(*ssa.Store); ok && st.Addr == a {
				out = append(out, st)
			}
		}
	}
	switch a := addr.(type) {
	case *ssa.Alloc, *ssa.FreeVar:
		collect(a)
	case *ssa.FieldAddr:
		for _, in := range refs(a.X) {
			if fa, ok := in.(*ssa.FieldAddr); ok && fa.Field == a.Field {
				collect(fa)
			}
		}
	}
	return out
}
