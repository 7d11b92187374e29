package leadershiploss

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
)

// reach is what the failure of a renewal reaches, read from SSA.
type reach struct {
	reaches bool     // it may reach the work (or the analysis cannot tell)
	at      ast.Node // where the failure is handled, for a report
	how     string   // what that handling does
	why     string   // the message's account of it
}

// maxRegion bounds the blocks read after one failure test.
const maxRegion = 64

// failureReach follows the outcome of a renewal call (its error, its bool,
// or the Err/Result of a returned command) through the SSA form of the
// goroutine: every use must be a test whose failing branch, up to the
// next round of the loop or the goroutine's end, does nothing that could
// reach the work (only logging, sleeping, formatting), or an argument of a
// logging call. Anything else (a cancel, a close or send, a store to a
// field or captured variable, a call of a function value or of other
// code, a return through a deferred cancel, the outcome handed on) may
// stop the work, and the answer is "reaches": unknown code gives no
// report.
func (c *checker) failureReach(eff *effects.Result, call *ast.CallExpr) reach {
	sc := eff.CallValue(call)
	if sc == nil || sc.Block() == nil {
		return reach{reaches: true}
	}
	outcomes := outcomeValues(sc)
	if outcomes == nil {
		return reach{reaches: true} // no error, bool or command answer: unknown
	}
	r := &reader{c: c, fn: sc.Parent(), sc: sc, seen: map[ssa.Value]bool{}}
	for _, v := range outcomes {
		r.value(v, 0)
	}
	switch {
	case r.unknown:
		return reach{reaches: true}
	case len(r.tests) == 0:
		return reach{why: "its result is discarded"}
	}
	for _, t := range r.tests {
		if r.regionReaches(t.block, t.fail) {
			return reach{reaches: true}
		}
	}
	if r.roundReaches(sc) {
		// the round does more than renew and log: a deadline recorded on
		// success (the work may check it), a lease object reset
		return reach{reaches: true}
	}
	how, why := "the failure is only logged; the loop goes on", "its failure is only logged"
	if r.returns {
		how, why = "after a failure the renewer can return, and nothing it defers stops the work", "after its failure the renewer can return without stopping the work"
	}
	var at ast.Node
	if t := r.tests[0]; t.pos.IsValid() {
		at = posNode(t.pos)
	}
	return reach{at: at, how: how, why: why}
}

// posNode is an ast.Node at a position, for related information.
type posNode token.Pos

func (p posNode) Pos() token.Pos { return token.Pos(p) }
func (p posNode) End() token.Pos { return token.Pos(p) }

// outcomeValues: the error and bool results of the call, or, for a
// command object (go-redis *BoolCmd), the results of its Err, Result and
// Val methods.
func outcomeValues(sc *ssa.Call) []ssa.Value {
	var out []ssa.Value
	keep := func(v ssa.Value) {
		if isErrorType(v.Type()) || isBool(v.Type()) {
			out = append(out, v)
		}
	}
	if tup, ok := sc.Type().(*types.Tuple); ok {
		n := 0
		for i := 0; i < tup.Len(); i++ {
			if isErrorType(tup.At(i).Type()) || isBool(tup.At(i).Type()) {
				n++
			}
		}
		if n == 0 {
			return nil
		}
		for _, in := range refs(sc) {
			if ex, ok := in.(*ssa.Extract); ok {
				keep(ex)
			}
		}
		if out == nil {
			out = []ssa.Value{} // indicators exist but none is read: discarded
		}
		return out
	}
	if isErrorType(sc.Type()) || isBool(sc.Type()) {
		return []ssa.Value{sc}
	}
	if !isCommand(sc.Type()) {
		return nil
	}
	// a command: its answer is read through its methods
	out = []ssa.Value{}
	var methods []ssa.Instruction
	for _, in := range refs(sc) {
		if fa, ok := in.(*ssa.FieldAddr); ok && fa.X == sc {
			// a method promoted from an embedded field: cmd.Err() is
			// (*baseCmd).Err(&cmd.baseCmd)
			for _, x := range refs(fa) {
				if m, ok := x.(*ssa.Call); !ok || len(m.Call.Args) == 0 || m.Call.Args[0] != fa {
					return nil
				}
				methods = append(methods, x)
			}
			continue
		}
		if m, ok := in.(*ssa.Call); !ok || len(m.Call.Args) == 0 || m.Call.Args[0] != sc {
			return nil // the command handed on: unknown
		}
		methods = append(methods, in)
	}
	for _, in := range methods {
		m, ok := in.(*ssa.Call)
		if !ok || m.Call.IsInvoke() || len(m.Call.Args) == 0 || m.Call.Signature().Recv() == nil {
			return nil // the command handed on: unknown
		}
		if tup, ok := m.Type().(*types.Tuple); ok {
			for _, x := range refs(m) {
				if ex, ok := x.(*ssa.Extract); ok && (isErrorType(tup.At(ex.Index).Type()) || isBool(tup.At(ex.Index).Type())) {
					out = append(out, ex)
				}
			}
			continue
		}
		keep(m)
	}
	return out
}

// isCommand: a pointer to a type with an Err() error method (go-redis
// *BoolCmd, *Cmd): the call's answer is read through it.
func isCommand(t types.Type) bool {
	if _, ok := t.(*types.Pointer); !ok {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Err")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && isErrorType(sig.Results().At(0).Type())
}

func refs(v ssa.Value) []ssa.Instruction {
	if r := v.Referrers(); r != nil {
		return *r
	}
	return nil
}

func isErrorType(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// failTest is a branch on the outcome: fail is the successor taken when the
// renewal failed.
type failTest struct {
	block *ssa.BasicBlock
	fail  *ssa.BasicBlock
	pos   token.Pos
}

type reader struct {
	c       *checker
	fn      *ssa.Function
	sc      *ssa.Call // the renewal
	seen    map[ssa.Value]bool
	tests   []failTest
	unknown bool // a use the reader cannot follow
	returns bool // a failing branch leaves the goroutine
}

// value reads the uses of an outcome value (or of a value derived from it:
// a wrapped error, an interface holding it, a phi merging it).
func (r *reader) value(v ssa.Value, depth int) {
	if r.unknown || r.seen[v] {
		return
	}
	r.seen[v] = true
	if depth > 6 {
		r.unknown = true
		return
	}
	for _, in := range refs(v) {
		switch u := in.(type) {
		case *ssa.If:
			// the bool itself: false is the failure
			r.tests = append(r.tests, failTest{block: u.Block(), fail: u.Block().Succs[1], pos: posOf(v)})
		case *ssa.BinOp:
			r.compare(u, v, depth)
		case *ssa.UnOp:
			if u.Op != token.NOT {
				r.unknown = true
				return
			}
			r.branch(u, 0, u.Pos(), depth) // !ok: true is the failure
		case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.Phi:
			r.value(u.(ssa.Value), depth+1)
		case *ssa.Call:
			r.argument(u, v, depth)
		case *ssa.Store:
			if u.Val != v || !r.logArgs(u.Addr) {
				r.unknown = true
			}
		case *ssa.DebugRef:
		default:
			r.unknown = true
		}
		if r.unknown {
			return
		}
	}
}

// compare reads err != nil, err == nil, ok == false, ok != true.
func (r *reader) compare(b *ssa.BinOp, v ssa.Value, depth int) {
	other := b.Y
	if other == v {
		other = b.X
	}
	k, ok := other.(*ssa.Const)
	if !ok || b.Op != token.EQL && b.Op != token.NEQ {
		r.unknown = true
		return
	}
	// the value of the comparison that means failure
	failWhen := true
	switch {
	case k.IsNil():
		failWhen = b.Op == token.NEQ // err != nil
	case k.Value != nil && k.Value.Kind() == constant.Bool:
		// ok == false, ok != true fail when true
		failWhen = (b.Op == token.EQL) != constant.BoolVal(k.Value)
	default:
		r.unknown = true
		return
	}
	idx := 1
	if failWhen {
		idx = 0
	}
	r.branch(b, idx, b.Pos(), depth)
}

// branch records the If that tests a derived bool; succ is the index of
// the failing successor when the bool is true.
func (r *reader) branch(v ssa.Value, succ int, pos token.Pos, depth int) {
	for _, in := range refs(v) {
		switch u := in.(type) {
		case *ssa.If:
			r.tests = append(r.tests, failTest{block: u.Block(), fail: u.Block().Succs[succ], pos: pos})
		case *ssa.DebugRef:
		default:
			// a combined condition (||, &&) is branches in SSA; anything
			// else is a value handed on
			r.unknown = true
			return
		}
	}
}

// argument: the outcome passed to a call: a logging call, errors.Is (a
// test of a kind of failure), or wrapping into a new error.
func (r *reader) argument(call *ssa.Call, v ssa.Value, depth int) {
	fn := calleeFunc(&call.Call)
	switch {
	case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && (fn.Name() == "Is" || fn.Name() == "As"):
		// errors.Is(err, ErrLost): true is a kind of failure
		r.branch(call, 0, call.Pos(), depth)
	case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Errorf":
		r.value(call, depth+1)
	case r.c.loggingCall(&call.Call):
	case call.Call.Value == v && call.Call.IsInvoke() && call.Call.Method.Name() == "Error":
		// err.Error() for a message
	default:
		r.unknown = true
	}
}

// logArgs: a store into the variadic array of a logging call.
func (r *reader) logArgs(addr ssa.Value) bool {
	ia, ok := addr.(*ssa.IndexAddr)
	if !ok {
		return false
	}
	arr, ok := ia.X.(*ssa.Alloc)
	if !ok || arr.Heap && arr.Comment != "varargs" {
		return false
	}
	for _, in := range refs(arr) {
		switch u := in.(type) {
		case *ssa.IndexAddr:
		case *ssa.Slice:
			for _, s := range refs(u) {
				call, ok := s.(*ssa.Call)
				if !ok || !r.c.loggingCall(&call.Call) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func posOf(v ssa.Value) token.Pos {
	if in, ok := v.(ssa.Instruction); ok {
		return in.Pos()
	}
	return token.NoPos
}

// regionReaches reads the blocks run after a failing test up to the next
// round of the loop (a block that dominates the test: the loop's head) or
// the goroutine's end, and reports whether anything there may reach the
// work.
func (r *reader) regionReaches(test, start *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := []*ssa.BasicBlock{start}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[b] || b.Dominates(test) {
			continue
		}
		seen[b] = true
		if len(seen) > maxRegion {
			return true
		}
		for _, in := range b.Instrs {
			if r.signals(in) {

				return true
			}
		}
		work = append(work, b.Succs...)
	}
	return false
}

// roundReaches reads the rest of the renewal's round, from the call to
// the loop's next round or the goroutine's end, on every path: anything
// there that may reach the work (a store to a field, a call of other code)
// makes the outcome unknown, since the success path can be what tells the
// work (l.expiresAt = res.ExpiresAt, read by the work before each step).
func (r *reader) roundReaches(sc *ssa.Call) bool {
	returns := r.returns
	defer func() { r.returns = returns }()
	b := sc.Block()
	after := false
	for _, in := range b.Instrs {
		if in == ssa.Instruction(sc) {
			after = true
			continue
		}
		if after && r.signals(in) {
			return true
		}
	}
	for _, s := range b.Succs {
		if r.regionReaches(b, s) {
			return true
		}
	}
	return false
}

// signals: an instruction that may tell the work, stop it, or do anything
// the analysis does not know to be harmless.
func (r *reader) signals(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.Call:
		return !r.c.harmlessCall(&in.Call) && !r.readsCommand(in)
	case *ssa.Go, *ssa.Defer, *ssa.Send, *ssa.Panic, *ssa.MapUpdate:
		return true
	case *ssa.Store:
		return !localAddr(in.Addr)
	case *ssa.Return:
		// the renewer leaves: the work goes on unless a deferred call
		// stops it (defer cancel(), defer close(done))
		r.returns = true
		return r.defersSignal()
	case *ssa.RunDefers:
		return r.defersSignal()
	}
	return false
}

// readsCommand: a method call on the renewal's command object (cmd.Err(),
// cmd.Result(), also promoted from an embedded field): reading the answer.
func (r *reader) readsCommand(call *ssa.Call) bool {
	if call.Call.IsInvoke() || len(call.Call.Args) == 0 || call.Call.Signature().Recv() == nil {
		return false
	}
	recv := call.Call.Args[0]
	if fa, ok := recv.(*ssa.FieldAddr); ok {
		recv = fa.X
	}
	return recv == r.sc
}

// defersSignal: the goroutine defers a call that may stop the work.
func (r *reader) defersSignal() bool {
	for _, b := range r.fn.Blocks {
		for _, in := range b.Instrs {
			if d, ok := in.(*ssa.Defer); ok && !r.c.harmlessCall(&d.Call) && !waitGroupDone(&d.Call) {
				return true
			}
		}
	}
	return false
}

// localAddr: an address of the goroutine's own stack (a variadic array, a
// local struct), not a field of shared state or a captured variable.
func localAddr(addr ssa.Value) bool {
	for {
		switch a := addr.(type) {
		case *ssa.Alloc:
			// a composite's storage (a variadic array, a slice literal)
			// is the goroutine's own even on the heap: a call it is
			// handed to is read on its own
			return !a.Heap || a.Comment == "varargs" || a.Comment == "slicelit" || a.Comment == "complit"
		case *ssa.IndexAddr:
			addr = a.X
		case *ssa.FieldAddr:
			addr = a.X
		default:
			return false
		}
	}
}

func calleeFunc(c *ssa.CallCommon) *types.Func {
	if c.IsInvoke() {
		return c.Method
	}
	if f := c.StaticCallee(); f != nil {
		if fn, ok := f.Object().(*types.Func); ok {
			return fn
		}
	}
	return nil
}

// loggingCall: a call of a logging function or a logger's method (also a
// project's own logger interface: a method named for a level on a type
// named for a log).
func (c *checker) loggingCall(call *ssa.CallCommon) bool {
	fn := calleeFunc(call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	for _, p := range []string{"Fatal", "Panic", "DPanic", "Exit"} {
		if strings.HasPrefix(fn.Name(), p) {
			return false
		}
	}
	if logging(fn.Pkg().Path()) || isLoggerMethod(fn) || projectLogger(fn) {
		return true
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	n := typeName(sig.Recv().Type())
	if !strings.Contains(strings.ToLower(n), "log") {
		return false
	}
	for _, v := range []string{"Debug", "Info", "Warn", "Error", "Print", "Log", "Trace", "Notice"} {
		if strings.HasPrefix(fn.Name(), v) {
			return true
		}
	}
	return false
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// harmlessCall: logging, formatting, errors, time, and the context's own
// accessors: nothing that tells the work or stops it.
func (c *checker) harmlessCall(call *ssa.CallCommon) bool {
	if b, ok := call.Value.(*ssa.Builtin); ok {
		return b.Name() != "close" && b.Name() != "panic"
	}
	if c.loggingCall(call) {
		return true
	}
	fn := calleeFunc(call)
	if fn == nil || fn.Pkg() == nil {
		return false // a function value: a cancel, a callback
	}
	switch fn.Pkg().Path() {
	case "fmt", "errors", "strings", "strconv", "math", "unicode/utf8":
		return true
	case "time":
		return fn.Name() != "AfterFunc"
	case "context":
		// ctx.Err(), ctx.Done(), context.Cause: reading, not cancelling
		switch fn.Name() {
		case "Err", "Done", "Value", "Deadline", "Cause":
			return true
		}
	}
	if call.IsInvoke() && fn.Name() == "Error" {
		return true // err.Error()
	}
	return false
}

func waitGroupDone(call *ssa.CallCommon) bool {
	fn := calleeFunc(call)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync" && fn.Name() == "Done"
}
