package leadershiploss

import (
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// A local validity taken after the reply. The holder records how long it
// may work as time.Now().Add(ttl) read AFTER the acquire or renewal that
// asked the store for ttl returned. The store's expiry runs from when it
// handled the command, earlier by the reply's way back and by every retry
// and stall before the answer arrived; a validity read after the reply
// ends that much later than the key. The work that checks it (a
// time.Now().Before(validUntil), time.Until, a context.WithDeadline derived
// from it) goes on after the key expired and another process acquired it.
// A start time read before the request is sent bounds the validity by the
// store's expiry; that shape is silent.

// checkValidAfterReply reports checks of a validity read after the reply.
func (c *checker) checkValidAfterReply(ix *deadlineIndex, eff *effects.Result) {
	type late struct {
		add   *ssa.Call // the validity computed
		asked *ssa.Call // the acquire or renewal it follows
	}
	stored := map[any]late{}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				st, ok := in.(*ssa.Store)
				if !ok {
					continue
				}
				add, ok := st.Val.(*ssa.Call)
				if !ok || nowAdd(add) == nil {
					continue
				}
				key := storageKey(st.Addr)
				if _, local := key.(*ssa.Alloc); key == nil || local {
					continue
				}
				if r := c.askedBefore(ix, eff, add); r != nil {
					if _, seen := stored[key]; !seen {
						stored[key] = late{add: add, asked: r}
					}
				}
			}
		}
	}
	if len(stored) == 0 {
		return
	}
	reported := map[any]bool{}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				f := funcOf(call.Common())
				if f == nil || f.Pkg() == nil {
					continue
				}
				switch {
				case f.Pkg().Path() == "time" && (f.Name() == "Before" || f.Name() == "After" || f.Name() == "Until" || f.Name() == "Sub" || f.Name() == "Compare"):
				case f.Pkg().Path() == "context" && f.Name() == "WithDeadline":
				default:
					continue
				}
				for _, a := range call.Call.Args {
					u, ok := a.(*ssa.UnOp)
					if !ok || u.Op != token.MUL {
						continue
					}
					key := storageKey(u.X)
					l, ok := stored[key]
					if !ok || reported[key] {
						continue
					}
					at := ix.calls[call.Pos()]
					if at == nil {
						continue
					}
					reported[key] = true
					var related []analysis.RelatedInformation
					if n := ix.calls[l.add.Pos()]; n != nil {
						related = append(related, rule.Related(n, "the validity: time.Now() read after the reply, plus the TTL"))
					}
					if n := ix.calls[l.asked.Pos()]; n != nil {
						related = append(related, rule.Related(n, "the acquire or renewal that asked the store for that TTL"))
					}
					c.p.Reportf(at, related,
						"this check reads a validity computed as time.Now().Add(ttl) after the reply of the call that asked the store for ttl: the key's expiry runs from when the store handled the command, earlier by the reply's way back and any retry or stall, so the work goes on after the key expired and another process may hold it; read the start time before sending the request and add the TTL to it")
				}
			}
		}
	}
}

// askedBefore returns the acquire or renewal, in add's function, that asks
// the store for add's TTL and whose reply comes before add's time.Now():
// it dominates the Now call (or precedes it in its block).
func (c *checker) askedBefore(ix *deadlineIndex, eff *effects.Result, add *ssa.Call) *ssa.Call {
	now := add.Call.Args[0].(*ssa.Call)
	ttl := add.Call.Args[1]
	fn := add.Parent()
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			r, ok := in.(*ssa.Call)
			if !ok || r == now || !before(r, now) {
				continue
			}
			asks := false
			for _, a := range r.Call.Args {
				if !isContext(a.Type()) && touches(a, func(v ssa.Value) bool { return sameSource(v, ttl) }, 0) {
					asks = true
				}
			}
			if asks && c.storeAsksExpiry(ix, eff, r) {
				return r
			}
		}
	}
	return nil
}

// before: a's block dominates b's, and a comes first when they share one.
func before(a, b ssa.Instruction) bool {
	if a.Block() == b.Block() {
		for _, in := range a.Block().Instrs {
			if in == a {
				return true
			}
			if in == b {
				return false
			}
		}
		return false
	}
	return a.Block().Dominates(b.Block())
}

// storeAsksExpiry: r takes or renews a lock or lease with an expiry: an
// acquire or expire of the knowledge base, a row renewal, or a constant
// text that moves an expiry.
func (c *checker) storeAsksExpiry(ix *deadlineIndex, eff *effects.Result, r *ssa.Call) bool {
	if call := ix.calls[r.Pos()]; call != nil {
		if op := lockfacts.Classify(c.info, c.p.KB, call); op != nil && (op.Kind == lockfacts.Expire || op.Kind == lockfacts.Acquire) {
			return true
		}
		if eff.Renewal(call) != nil {
			return true
		}
	}
	for _, a := range r.Call.Args {
		if ix.movesExpiry(a, nil, 0) {
			return true
		}
	}
	return false
}
