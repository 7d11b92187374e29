package effects

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/signals"
)

// A read-modify-write is found by value flow inside one function: a call
// on a store receiver R (the read) whose result, or a field of it, or what
// is scanned or computed from it, reaches through an increment (x+n, x-n,
// x++, append to a slice read from it, big.Int Add/Sub/SetInt64 of such a
// value) an argument of another call on the same R (the write). R is the
// same when both calls use one SSA value or load the same field path from
// one base (a.db.Get, a.db.Put), type assertions and conversions aside.
// The value stops at an interface method it is handed to as an argument
// (a plugin's handler answers with a value of its own); methods of the
// value read and pointers handed to a call still carry it.
//
// Read and write are told apart by how the calls' values are used, not by
// their names: the read is the call whose non-error result carries the
// value; the write is the call that receives the incremented value and
// whose answer carries no data the function goes on with (nothing but an
// error or a status, or a result left unused), or that the knowledge base
// already classifies as a write. A call on R that receives an incremented
// value and returns data that is used is a read with a derived argument
// (the next page, offset+n) and no write. Method names are only a
// tie-breaker for a used bool answer: a predicate (Has, Exists, Is,
// Contains) is a read, any other bool is a write's status.
//
// Other replicas doing the same interleave between the read and the write:
// an update is lost, or two replicas write the same next value. It is an
// accumulating effect unless something serialises it:
//   - the read is a locking read (SELECT ... FOR UPDATE) on a transaction
//     the write is made on;
//   - the write is a compare-and-set: it takes the old value (or a version,
//     an etag read with it) and its answer is checked;
//   - the read or the write is keyed by the instance's own identity;
//   - the store cannot be shared: a standard-library type the knowledge
//     base does not name, a concrete type whose methods reach no shared
//     state (of this package, or of another one and holding no network
//     connection: a write-ahead log on the local disk), an interface with
//     such an implementation in sight, or a write that cannot fail (no
//     error result) on a store the knowledge base does not name.

// rmwHit is one read-modify-write, keyed by its write call.
type rmwHit struct {
	read, write *ssa.CallCommon
	writeValue  *ssa.Call
	writeFn     *types.Func
	readAt      token.Pos
	dataUsed    bool // the write's answer carries data that is used
	oldPassed   bool // the write takes the old value or a version read with it
	// writesBack: an incremented argument of the write has the type of
	// what the read returned (or of its elements): the value read, moved
	// on, goes back (rmwguards.go).
	writesBack bool
}

// readModifyWrite adds the accumulating effect of a read-modify-write to
// the event of its write call, unless it is coordinated or per-replica.
func (r *Result) readModifyWrite(call *ast.CallExpr, ev *Event) {
	known := len(ev.Effects) > 0
	if !r.rmwWriteCandidate(call, known) {
		return // no hit here could be acted on: the SSA form stays unbuilt
	}
	h := r.rmwHits()[call.Lparen]
	if h == nil {
		return
	}
	if h.dataUsed && !known {
		return // a read with a derived argument, not a write
	}
	if !known && !r.opaqueStore(h) {
		return
	}
	// An opaque write handed something else than what was read (a
	// position, the next revision, a count derived from the rows) may use
	// it as the key of a new record (an insert that conflicts when two
	// replicas make it) rather than store it over the old value; what it
	// does is out of sight: unknown, shown under the strict profile only.
	unknown := !known && !h.writesBack
	readCall := r.astCall(h.readAt)
	if readCall == nil {
		return
	}
	if r.identityArg(call) != "" || r.identityArg(readCall) != "" {
		return // the instance's own record: per-replica
	}
	if r.lockingRead(readCall, h) {
		// SELECT ... FOR UPDATE in the transaction that writes: the row
		// stays locked until the write commits.
		ev.Coordination, ev.Effects = "SELECT ... FOR UPDATE held to the write", nil
		return
	}
	if h.oldPassed && r.answerChecked(call, h) {
		ev.Coordination, ev.Effects = "compare-and-set ("+callText(call)+" takes the old value, its answer is checked)", nil
		return
	}
	evidence := fmt.Sprintf("reads a value through %s (%s) and writes it back incremented through %s (%s)",
		callText(readCall), r.where(readCall.Pos()), callText(call), r.where(call.Pos()))
	if unknown {
		evidence = fmt.Sprintf("reads a value through %s (%s) and hands a value derived from it, incremented, to %s (%s), whose write the analysis cannot read",
			callText(readCall), r.where(readCall.Pos()), callText(call), r.where(call.Pos()))
	}
	ev.Effects = append(ev.Effects, Effect{
		Kind:            "increment",
		Unknown:         unknown,
		API:             apiName(h.writeFn),
		Where:           r.where(call.Pos()),
		ReadModifyWrite: evidence,
	})
}

// callText renders "crlDB.GetCRL" for a method call.
func callText(call *ast.CallExpr) string {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		x := types.ExprString(sel.X)
		if len(x) > 40 {
			x = "…" + x[len(x)-39:]
		}
		return x + "." + sel.Sel.Name
	}
	return types.ExprString(call.Fun)
}

// astCall returns the call expression whose Lparen is at pos.
func (r *Result) astCall(pos token.Pos) *ast.CallExpr {
	if r.callAt == nil {
		r.callAt = map[token.Pos]*ast.CallExpr{}
		for _, f := range r.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					r.callAt[c.Lparen] = c
				}
				return true
			})
		}
	}
	return r.callAt[pos]
}

// rmwHits finds the package's read-modify-writes, once.
func (r *Result) rmwHits() map[token.Pos]*rmwHit {
	if r.rmw != nil {
		return r.rmw
	}
	r.rmw = map[token.Pos]*rmwHit{}
	cands := r.rmwCands()
	if len(cands) == 0 {
		return r.rmw // nothing shaped like one: the SSA form stays unbuilt
	}
	fl := r.flow()
	for _, fn := range fl.funcs {
		syn := fn.Syntax()
		if syn == nil {
			continue
		}
		for _, c := range cands {
			if c.Pos() <= syn.Pos() && syn.End() <= c.End() {
				r.rmwIn(fn)
				break
			}
		}
	}
	return r.rmw
}

// storeCall is a call on a store receiver.
type storeCall struct {
	common *ssa.CallCommon
	value  *ssa.Call
	fn     *types.Func
}

// rmwIn records the read-modify-writes of one function.
func (r *Result) rmwIn(fn *ssa.Function) {
	groups := map[string][]storeCall{}
	var order []string
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok {
				continue
			}
			c := call.Common()
			callee := calleeFunc(c)
			recv := receiverOf(c)
			if callee == nil || recv == nil || !storeMethod(r.pass.Fset, r.kb, callee) {
				continue
			}
			k := recvKey(recv, 0)
			if k == "" {
				continue
			}
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], storeCall{common: c, value: call, fn: callee})
		}
	}
	for _, k := range order {
		calls := groups[k]
		if len(calls) < 2 {
			continue
		}
		isStore := map[*ssa.CallCommon]bool{}
		for _, c := range calls {
			isStore[c.common] = true
		}
		for _, read := range calls {
			if !usedAsData(read.value) {
				continue
			}
			lv := taint(read.value, isStore)
			for _, w := range calls {
				if w.common == read.common || r.rmw[w.common.Pos()] != nil {
					continue
				}
				args := callArgs(w.common)
				inc := false
				for _, a := range args {
					if lv[a] == incremented {
						inc = true
					}
				}
				if !inc {
					continue
				}
				r.rmw[w.common.Pos()] = &rmwHit{
					read: read.common, write: w.common, writeValue: w.value, writeFn: w.fn,
					readAt: read.common.Pos(), dataUsed: writeAnswerUsed(w), oldPassed: oldPassed(w.common, lv),
					writesBack: writesBack(read.common, args, lv),
				}
			}
		}
	}
}

// storeMethod: a method of the standard library is no store's (a buffer,
// a sync.Map), unless the knowledge base names it as an effect
// (database/sql).
func storeMethod(fset *token.FileSet, kb *signals.Knowledge, fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	return !InGOROOT(fset.Position(fn.Pos()).Filename) || kb.Match(signals.Effects, fn) != nil
}

func calleeFunc(c *ssa.CallCommon) *types.Func {
	if c.IsInvoke() {
		return c.Method
	}
	if sc := c.StaticCallee(); sc != nil {
		fn, _ := sc.Object().(*types.Func)
		return fn
	}
	return nil
}

// receiverOf returns the receiver of a method call, nil for other calls.
func receiverOf(c *ssa.CallCommon) ssa.Value {
	if c.IsInvoke() {
		return c.Value
	}
	if sc := c.StaticCallee(); sc != nil && sc.Signature.Recv() != nil && len(c.Args) > 0 {
		return c.Args[0]
	}
	return nil
}

// callArgs returns the arguments of a call, receiver left out, a variadic
// slice unpacked into the values stored into it.
func callArgs(c *ssa.CallCommon) []ssa.Value {
	args := c.Args
	if !c.IsInvoke() && c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	var out []ssa.Value
	for i, a := range args {
		if i == len(args)-1 && c.Signature().Variadic() {
			out = append(out, a)
			out = append(out, sliceElems(a)...)
			continue
		}
		out = append(out, a)
	}
	return out
}

// recvKey names a receiver so that two loads of one store match: the same
// SSA value, or the same field path from one base.
func recvKey(v ssa.Value, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.MUL {
			if k := recvKey(x.X, depth+1); k != "" {
				return k + "*"
			}
			return ""
		}
	case *ssa.FieldAddr:
		if k := recvKey(x.X, depth+1); k != "" {
			return fmt.Sprintf("%s.%p", k, fieldOf(x.X.Type(), x.Field))
		}
		return ""
	case *ssa.Field:
		if k := recvKey(x.X, depth+1); k != "" {
			return fmt.Sprintf("%s.%p", k, fieldOf(x.X.Type(), x.Field))
		}
		return ""
	case *ssa.TypeAssert:
		return recvKey(x.X, depth+1)
	case *ssa.Extract:
		if ta, ok := x.Tuple.(*ssa.TypeAssert); ok && x.Index == 0 {
			return recvKey(ta.X, depth+1)
		}
	case *ssa.ChangeInterface:
		return recvKey(x.X, depth+1)
	case *ssa.MakeInterface:
		return recvKey(x.X, depth+1)
	case *ssa.ChangeType:
		return recvKey(x.X, depth+1)
	}
	return fmt.Sprintf("%p", v)
}

// Taint levels: derived from the read, and incremented on the way.
const (
	derived     = 1
	incremented = 2
)

// taint follows the values a read call's result reaches within its
// function. store marks the calls on the store itself: their results are
// new reads, not the old value.
func taint(read *ssa.Call, store map[*ssa.CallCommon]bool) map[ssa.Value]int {
	lv := map[ssa.Value]int{}
	// collected marks slices built by appending read values to something
	// that was not read (ids = append(ids, id) in a loop over rows): a
	// collection of old values, not an old value moved on, so appending to
	// it again is no increment.
	collected := map[ssa.Value]bool{}
	var work []ssa.Value
	raise := func(v ssa.Value, l int) {
		if v == nil || lv[v] >= l {
			return
		}
		if _, isConst := v.(*ssa.Const); isConst {
			return
		}
		lv[v] = l
		work = append(work, v)
	}
	res := read.Call.Signature().Results()
	if res.Len() == 1 {
		raise(read, derived)
	} else {
		for i := 0; i < res.Len(); i++ {
			if !isError(res.At(i).Type()) {
				for _, e := range extracts(read, i) {
					raise(e, derived)
				}
			}
		}
	}
	for steps := 0; len(work) > 0 && steps < 4096; steps++ {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		l := lv[v]
		for _, ref := range referrers(v) {
			switch in := ref.(type) {
			case *ssa.Extract:
				if !isError(in.Type()) {
					raise(in, l)
				}
			case *ssa.UnOp:
				if in.Op != token.NOT {
					raise(in, l)
				}
			case *ssa.FieldAddr, *ssa.Field, *ssa.IndexAddr, *ssa.Index, *ssa.Lookup, *ssa.Slice,
				*ssa.Convert, *ssa.ChangeType, *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.TypeAssert,
				*ssa.Phi, *ssa.Range, *ssa.Next:
				if collected[v] {
					collected[ref.(ssa.Value)] = true
				}
				raise(ref.(ssa.Value), l)
			case *ssa.BinOp:
				raise(in, binOpLevel(in, v, l))
			case *ssa.Store:
				if in.Val == v {
					raise(storeRoot(in.Addr, lv), l)
				}
			case *ssa.MapUpdate:
				if in.Value == v || in.Key == v {
					raise(in.Map, l)
				}
			case *ssa.Call:
				c := in.Common()
				if store[c] {
					continue // another call on the store: a write candidate, or a new read
				}
				nl := l
				if b, ok := c.Value.(*ssa.Builtin); ok {
					switch b.Name() {
					case "append":
						switch {
						case len(c.Args) > 0 && c.Args[0] == v && !collected[v]:
							nl = incremented // appended to a slice read from the store
						case len(c.Args) > 0 && (c.Args[0] != v || collected[v]):
							collected[in] = true
						}
					case "len", "cap", "min", "max":
					default:
						continue
					}
				} else if bigArith(c) {
					nl = incremented
				}
				// An interface method the read's value is handed to as an
				// argument (a plugin's handler, a connector's API) answers
				// with a value of its own: what it returns is not the old
				// value moved on (prefer silence). The receiver's methods
				// (row.Scan(&n) on the row read) still carry it, and so do
				// the pointers handed to the call.
				if !c.IsInvoke() || c.Value == v {
					raise(in, nl)
				}
				// A pointer handed to the call receives the value (row.Scan(&n),
				// bn.SetInt64(n+1), json.Unmarshal(b, &v)).
				for _, a := range append(callArgs(c), receiverOf(c)) {
					if a == nil {
						continue
					}
					a = unwrap(a)
					if _, isPtr := a.Type().Underlying().(*types.Pointer); isPtr && a != v {
						raise(storeRoot(a, lv), nl)
					}
				}
			}
		}
	}
	return lv
}

// binOpLevel: an addition with the value, or a subtraction from it, is an
// increment; other arithmetic keeps the level; comparisons and string
// concatenations do not carry the value.
func binOpLevel(b *ssa.BinOp, v ssa.Value, l int) int {
	if basic, ok := b.Type().Underlying().(*types.Basic); !ok || basic.Info()&types.IsNumeric == 0 {
		return 0
	}
	switch b.Op {
	case token.ADD:
		return incremented
	case token.SUB:
		if b.X == v {
			return incremented
		}
		return 0 // now - last: a difference, not the stored value moved on
	case token.MUL, token.QUO, token.REM, token.AND, token.OR, token.XOR, token.SHL, token.SHR, token.AND_NOT:
		return l
	}
	return 0
}

// bigArith: math/big Add, Sub, SetInt64 and the like on a value: the
// receiver becomes the incremented value (SetInt64 carries the level of
// its argument, which is incremented when the argument was).
func bigArith(c *ssa.CallCommon) bool {
	fn := calleeFunc(c)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "math/big" {
		return false
	}
	switch fn.Name() {
	case "Add", "Sub":
		return true
	}
	return false
}

// storeRoot returns the variable an address belongs to, when it is a local
// variable (an Alloc) or a value already tainted (a struct read from the
// store whose field is set): the whole variable carries the value stored
// into it. nil for other addresses (a field of the receiver).
func storeRoot(addr ssa.Value, lv map[ssa.Value]int) ssa.Value {
	var root ssa.Value
	for depth := 0; addr != nil && depth < maxDepth; depth++ {
		if lv[addr] > 0 {
			root = addr
		}
		switch a := addr.(type) {
		case *ssa.Alloc:
			return a
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			addr = a.X
		default:
			return root
		}
	}
	return root
}

// usedAsData: a call's non-error result is used.
func usedAsData(call *ssa.Call) bool {
	res := call.Call.Signature().Results()
	if res.Len() == 1 {
		return !isError(res.At(0).Type()) && dataUse(call)
	}
	for i := 0; i < res.Len(); i++ {
		if isError(res.At(i).Type()) {
			continue
		}
		for _, e := range extracts(call, i) {
			if dataUse(e) {
				return true
			}
		}
	}
	return false
}

// dataUse: the value is used, other than through methods that only give a
// status (cmd.Err()).
func dataUse(v ssa.Value) bool {
	for _, ref := range referrers(v) {
		switch in := ref.(type) {
		case *ssa.DebugRef:
			continue
		case *ssa.Call:
			if receiverOf(in.Common()) == v && statusOnly(in.Common().Signature()) && !takesPointer(in.Common()) {
				continue // cmd.Err(), not row.Scan(&n)
			}
		}
		return true
	}
	return false
}

// takesPointer: a call hands a pointer to be filled (row.Scan(&n)).
func takesPointer(c *ssa.CallCommon) bool {
	for _, a := range callArgs(c) {
		if _, ok := unwrap(a).Type().Underlying().(*types.Pointer); ok {
			return true
		}
	}
	return false
}

// statusOnly: a signature whose results are errors and bools only.
func statusOnly(sig *types.Signature) bool {
	res := sig.Results()
	for i := 0; i < res.Len(); i++ {
		t := res.At(i).Type()
		if b, ok := t.Underlying().(*types.Basic); !isError(t) && (!ok || b.Kind() != types.Bool) {
			return false
		}
	}
	return true
}

// predicateName: Has, Exists, Is, Contains: a bool answer that is a read.
var predicateName = regexp.MustCompile(`^(Has|Exists|Is|Contains)([A-Z]|$)`)

var versionField = regexp.MustCompile(`(?i)^(version|etag|revision|rev|modrevision|mod_revision|resourceversion|generation|cas|casid|seqno)$`)
