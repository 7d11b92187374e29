package leadershiploss

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// A leadership flag kept across a failed acquire or renewal: a function,
// run again and again, asks a lease-like lock for leadership (ok, err :=
// lock.Acquire(name, ttl)) and on success stores the answer in a flag
// (p.isLeader.Store(ok)), but on the error path only logs, leaving the flag
// as the previous round set it. A leader whose renewals fail (the store is
// unreachable) keeps believing it leads after its lease expired and another
// replica took it; whatever reads the flag keeps working as leader.
//
// The lock is lease-like only when its expiry is known: a renewal (isRenew,
// the knowledge base's renew kind), an acquire of the knowledge base, or a
// lock-like acquire (lockLikeAcquire) that is handed a time.Duration (the
// TTL). A lock with no expiry is still held when a re-acquire fails: the
// kept flag is then right.

// flagRef is a leadership flag: a struct field or a package variable.
type flagRef = types.Object

// flagStore is a store to a flag: its value and where it is.
type flagStore struct {
	flag flagRef
	val  ssa.Value
	pos  token.Pos
}

// checkKeptFlags reports acquires and renewals whose failure leaves the
// leadership flag their success sets.
func (c *checker) checkKeptFlags(index func() *deadlineIndex) {
	// most packages name no lease-like function: they pay one walk of
	// their syntax and no SSA form (a superset of leaseCall, which needs
	// the call's arguments and is asked again on SSA below)
	if !c.namesLeaseLike() {
		return
	}
	ix := index()
	reads := c.flagReads(ix)
	if len(reads) == 0 {
		return
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				c.keptFlag(ix, call, reads)
			}
		}
	}
}

// leaseCall reports whether a call asks a lock with an expiry for
// leadership.
// namesLeaseLike reports whether the package's files use a function that
// leaseCall could accept, in a call or as a value.
func (c *checker) namesLeaseLike() bool {
	found := false
	for _, f := range c.p.Pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if found {
				return false
			}
			if id, ok := n.(*ast.Ident); ok {
				if fn, ok := c.info.Uses[id].(*types.Func); ok {
					found = c.isRenew(fn) || leadership.Kind(c.p.KB, fn, "acquire-result") != nil || lockLikeAcquire(fn)
				}
			}
			return true
		})
	}
	return found
}

func (c *checker) leaseCall(call *ssa.Call, fn *types.Func) bool {
	if c.isRenew(fn) || leadership.Kind(c.p.KB, fn, "acquire-result") != nil {
		return true
	}
	if !lockLikeAcquire(fn) {
		return false
	}
	for _, a := range call.Call.Args {
		if n := leadership.NamedOf(a.Type()); n != nil && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
			return true
		}
	}
	return false
}

func (c *checker) keptFlag(ix *deadlineIndex, call *ssa.Call, reads map[flagRef]token.Pos) {
	fn := calleeFunc(&call.Call)
	if fn == nil || !c.leaseCall(call, fn) {
		return
	}
	// the (bool, error) answer
	var okV, errV ssa.Value
	for _, r := range refs(call) {
		ex, isEx := r.(*ssa.Extract)
		if !isEx {
			continue
		}
		switch {
		case isBool(ex.Type()):
			okV = ex
		case isErrorType(ex.Type()):
			errV = ex
		}
	}
	if okV == nil || errV == nil {
		return
	}
	errSucc, okSucc := errTest(errV)
	if errSucc == nil {
		return
	}
	// the success path stores the answer (or true) in a flag that is read
	var set *flagStore
	for _, b := range call.Parent().Blocks {
		if !okSucc.Dominates(b) {
			continue
		}
		for _, in := range b.Instrs {
			for _, s := range c.flagStores(ix, in, 0) {
				if _, read := reads[s.flag]; read && (s.val == okV || isTrue(s.val)) {
					set = &s
				}
			}
		}
	}
	if set == nil || !c.repeated(ix, call) {
		return
	}
	// the error path: nothing stores the flag before the next round or
	// the return, and nothing there stops the work
	if c.errorPathClears(ix, call.Block(), errSucc, set.flag) || !c.errorPathOnlyLogs(ix, errSucc) {
		return
	}
	at := ix.calls[call.Pos()]
	if at == nil {
		return
	}
	related := []analysis.RelatedInformation{
		rule.Related(posNode(set.pos), "the leadership flag set from the answer"),
		rule.Related(posNode(errPathPos(errSucc)), "the error path leaves the flag as the previous round set it"),
	}
	if p := reads[set.flag]; p.IsValid() {
		related = append(related, rule.Related(posNode(p), "the flag read as leadership"))
	}
	c.p.Reportf(at, related,
		"the leadership flag %s is not reset when %s fails: the error path keeps the value of the previous round, so a leader whose renewals fail keeps believing it leads after its lease expired and another replica took it, and on N replicas two act as leader at once; clear the flag (store false) when the call fails, or use the elector package",
		set.flag.Name(), apiName(fn))
}

// errTest finds the test err != nil (or err == nil) of the answer's error
// and returns its failing and succeeding successors.
func errTest(errV ssa.Value) (fail, succ *ssa.BasicBlock) {
	for _, r := range refs(errV) {
		b, ok := r.(*ssa.BinOp)
		if !ok || (b.Op != token.NEQ && b.Op != token.EQL) {
			continue
		}
		other := b.Y
		if other == errV {
			other = b.X
		}
		if k, ok := other.(*ssa.Const); !ok || !k.IsNil() {
			continue
		}
		for _, u := range refs(b) {
			ifs, ok := u.(*ssa.If)
			if !ok {
				continue
			}
			f, s := ifs.Block().Succs[0], ifs.Block().Succs[1]
			if b.Op == token.EQL {
				f, s = s, f
			}
			// a successor with one predecessor: what it dominates is
			// that side's alone
			if len(f.Preds) != 1 || len(s.Preds) != 1 {
				return nil, nil
			}
			return f, s
		}
	}
	return nil, nil
}

// flagStores reads the flag stores of one instruction: a store to a field
// or package variable of type bool, a sync/atomic Store method or function
// on one, or a call of a setter of this package that stores its parameter
// (or a constant) in one.
func (c *checker) flagStores(ix *deadlineIndex, in ssa.Instruction, depth int) []flagStore {
	switch in := in.(type) {
	case *ssa.Store:
		if f := flagAt(in.Addr); f != nil && isBool(f.Type()) {
			return []flagStore{{flag: f, val: in.Val, pos: in.Pos()}}
		}
	case *ssa.Call:
		cc := &in.Call
		fn := calleeFunc(cc)
		if fn == nil || fn.Pkg() == nil || cc.IsInvoke() {
			return nil
		}
		if fn.Pkg().Path() == "sync/atomic" && len(cc.Args) == 2 {
			switch fn.Name() {
			case "Store", "StoreInt32", "StoreUint32", "StoreInt64", "StoreUint64":
				if f := flagAt(cc.Args[0]); f != nil {
					return []flagStore{{flag: f, val: cc.Args[1], pos: in.Pos()}}
				}
			}
			return nil
		}
		callee := cc.StaticCallee()
		if callee == nil || fn.Pkg() != c.p.Pkg || depth > 0 {
			return nil
		}
		var out []flagStore
		for _, b := range callee.Blocks {
			for _, inner := range b.Instrs {
				for _, s := range c.flagStores(ix, inner, depth+1) {
					// the setter's parameter is the caller's argument
					if p, ok := s.val.(*ssa.Parameter); ok {
						i := paramIndex(callee, p)
						if i < 0 || i >= len(cc.Args) {
							continue
						}
						s.val = cc.Args[i]
					}
					s.pos = in.Pos()
					out = append(out, s)
				}
			}
		}
		return out
	}
	return nil
}

// flagAt is the field or package variable an address points at.
func flagAt(addr ssa.Value) flagRef {
	switch a := addr.(type) {
	case *ssa.FieldAddr:
		p, ok := a.X.Type().Underlying().(*types.Pointer)
		if !ok {
			return nil
		}
		st, ok := p.Elem().Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		return st.Field(a.Field)
	case *ssa.Global:
		return a.Object()
	}
	return nil
}

// isTrue: the constant true or a non-zero integer (atomic.StoreInt32(&f, 1)).
func isTrue(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	if !ok || k.Value == nil {
		return false
	}
	switch k.Value.Kind() {
	case constant.Bool:
		return constant.BoolVal(k.Value)
	case constant.Int:
		return constant.Sign(k.Value) != 0
	}
	return false
}

// flagReads finds the fields and package variables read in the package as
// a flag: a load of a bool, or an atomic Load of it; each with the first
// read's position.
func (c *checker) flagReads(ix *deadlineIndex) map[flagRef]token.Pos {
	out := map[flagRef]token.Pos{}
	note := func(f flagRef, pos token.Pos) {
		if f == nil {
			return
		}
		if old, ok := out[f]; !ok || pos < old {
			out[f] = pos
		}
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.UnOp:
					if in.Op == token.MUL && isBool(in.Type()) {
						note(flagAt(in.X), in.Pos())
					}
				case *ssa.Call:
					fn := calleeFunc(&in.Call)
					if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || len(in.Call.Args) != 1 {
						continue
					}
					switch fn.Name() {
					case "Load", "LoadInt32", "LoadUint32", "LoadInt64", "LoadUint64":
						note(flagAt(in.Call.Args[0]), in.Pos())
					}
				}
			}
		}
	}
	return out
}

// repeated reports whether the call runs round after round: in a loop of
// its function, or in a function a loop of the package calls.
func (c *checker) repeated(ix *deadlineIndex, call *ssa.Call) bool {
	if lockfacts.InCycle(call.Block()) {
		return true
	}
	for _, site := range ix.callers[call.Parent()] {
		if lockfacts.InCycle(site.Block()) {
			return true
		}
	}
	return false
}

// errorPathClears reports whether a block run after the failure, up to the
// next round (the call's block) or the return, stores anything but true in
// the flag, or calls a function of the package that may.
func (c *checker) errorPathClears(ix *deadlineIndex, callBlock, start *ssa.BasicBlock, flag flagRef) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := []*ssa.BasicBlock{start}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == callBlock || seen[b] {
			continue
		}
		seen[b] = true
		for _, in := range b.Instrs {
			for _, s := range c.flagStores(ix, in, 0) {
				if s.flag == flag && !isTrue(s.val) {
					return true
				}
			}
		}
		work = append(work, b.Succs...)
	}
	return false
}

// errorPathOnlyLogs reports whether the blocks of the error path alone
// (those its first block dominates) only log: no call that may stop the
// work (a cancel, a close, a callback), no panic, no goroutine, no send,
// and no error handed back to the caller, who may stop it. Stores of a
// flag (also through a setter) are left to errorPathClears.
func (c *checker) errorPathOnlyLogs(ix *deadlineIndex, start *ssa.BasicBlock) bool {
	for _, b := range start.Parent().Blocks {
		if !start.Dominates(b) {
			continue
		}
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Call:
				// a flag store is bookkeeping: errorPathClears judges it
				if len(c.flagStores(ix, in, 0)) > 0 {
					continue
				}
				if !c.harmlessCall(&in.Call) {
					return false
				}
			case *ssa.Go, *ssa.Defer, *ssa.Panic, *ssa.Send:
				return false
			case *ssa.Return:
				for _, r := range in.Results {
					if isErrorType(r.Type()) {
						if k, ok := r.(*ssa.Const); !ok || !k.IsNil() {
							return false
						}
					}
				}
			}
		}
	}
	return true
}

// errPathPos is the first positioned instruction of the error path.
func errPathPos(b *ssa.BasicBlock) token.Pos {
	for _, in := range b.Instrs {
		if p := in.Pos(); p.IsValid() {
			return p
		}
	}
	return b.Parent().Pos()
}
