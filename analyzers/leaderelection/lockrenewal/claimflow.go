package lockrenewal

import (
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// This file follows a claimed queue item through the package in SSA form,
// from the call that claimed it to the work done on it: a handler or
// callback called with it, or a channel send of it to whatever handles it.

// claimSSA is the package in SSA form, built the first time a claim with a
// takeover needs it (most packages have none and pay nothing).
type claimSSA struct {
	pkg   *ssa.Package
	calls map[token.Pos][]ssa.CallInstruction // by the call's Lparen
}

func (c *checker) claimSSA() *claimSSA {
	if c.ssa != nil {
		return c.ssa
	}
	// The effects analysis's value-flow SSA of the package (its constant
	// tables left out, which hold no claims), not a second build of it.
	r := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	s := &claimSSA{calls: map[token.Pos][]ssa.CallInstruction{}}
	for _, fn := range r.SSAFuncs() {
		if s.pkg == nil && fn.Pkg != nil && fn.Pkg.Pkg == c.p.Pkg {
			s.pkg = fn.Pkg
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(ssa.CallInstruction); ok {
					s.calls[call.Common().Pos()] = append(s.calls[call.Common().Pos()], call)
				}
			}
		}
	}
	c.ssa = s
	return s
}

// callValue is the SSA value of the call whose Lparen is at pos, or nil.
func (s *claimSSA) callValue(lparen token.Pos) *ssa.Call {
	for _, in := range s.calls[lparen] {
		if v, ok := in.(*ssa.Call); ok {
			return v
		}
	}
	return nil
}

// workSite is the work found on the claimed item.
type workSite struct {
	pos  token.Pos
	what string
}

// itemTracer spreads "derived from the claimed item" over SSA values.
type itemTracer struct {
	c      *checker
	s      *claimSSA
	expiry time.Duration
	seen   map[ssa.Value]bool
	queue  []ssa.Value
	found  *workSite
	// keyed: calls that received a value derived from the item (a
	// renewal keyed by the item is one of them)
	keyed map[token.Pos]bool
}

// maxTraced bounds the values followed from one claim.
const maxTraced = 20000

func (c *checker) traceItem(s *claimSSA, seeds []ssa.Value, expiry time.Duration) *itemTracer {
	t := &itemTracer{c: c, s: s, expiry: expiry, seen: map[ssa.Value]bool{}, keyed: map[token.Pos]bool{}}
	for _, v := range seeds {
		t.add(v)
	}
	for len(t.queue) > 0 && len(t.seen) < maxTraced {
		v := t.queue[0]
		t.queue = t.queue[1:]
		t.visit(v)
	}
	return t
}

func (t *itemTracer) add(v ssa.Value) {
	if v == nil || t.seen[v] {
		return
	}
	switch v.(type) {
	case *ssa.Const, *ssa.Function, *ssa.Global, *ssa.Builtin:
		return
	}
	if notItem(v.Type()) {
		return
	}
	t.seen[v] = true
	t.queue = append(t.queue, v)
}

// addRoot marks the variable an address points into: a store of the item
// into x.f or a[i] makes x (and every later load of it) the item's.
func (t *itemTracer) addRoot(addr ssa.Value) {
	for {
		t.add(addr)
		switch a := addr.(type) {
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			addr = a.X
		default:
			return
		}
	}
}

func (t *itemTracer) work(pos token.Pos, what string) {
	if t.found == nil && pos.IsValid() {
		t.found = &workSite{pos: pos, what: what}
	}
}

func (t *itemTracer) visit(v ssa.Value) {
	refs := v.Referrers()
	if refs == nil {
		return
	}
	for _, ref := range *refs {
		switch in := ref.(type) {
		case *ssa.Send:
			if in.X == v {
				t.work(in.Pos(), "a send of the claimed item on "+valueName(in.Chan, "a channel")+" to whatever handles it")
			}
		case *ssa.Select:
			for _, st := range in.States {
				if st.Dir == types.SendOnly && st.Send == v {
					t.work(st.Pos, "a send of the claimed item on "+valueName(st.Chan, "a channel")+" to whatever handles it")
				}
			}
		case *ssa.Store:
			if in.Val == v {
				t.addRoot(in.Addr)
			}
		case ssa.CallInstruction:
			t.call(in, v)
		case *ssa.MakeClosure:
			fn := in.Fn.(*ssa.Function)
			for i, b := range in.Bindings {
				if b == v && i < len(fn.FreeVars) {
					t.add(fn.FreeVars[i])
				}
			}
		case *ssa.BinOp, *ssa.If, *ssa.Return, *ssa.Jump, *ssa.Panic, *ssa.DebugRef, *ssa.MapUpdate:
			// a comparison or a return carries no item on
		case ssa.Value:
			t.add(in)
		}
	}
}

// call handles the item reaching a call: work when it is a handler's
// argument, followed when it enters a function of the package, carried to
// the result (and to what a Scan or Unmarshal fills in) otherwise.
func (t *itemTracer) call(in ssa.CallInstruction, v ssa.Value) {
	common := in.Common()
	asArg := false
	for _, a := range common.Args {
		if a == v {
			asArg = true
		}
	}
	if !asArg && common.Value != v {
		return
	}
	t.keyed[common.Pos()] = true
	if t.boundedCall(common) {
		return // ends at its context's deadline, before the claim expires
	}
	result, _ := in.(*ssa.Call)
	if b, ok := common.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "append":
			if result != nil {
				t.add(result)
			}
		case "copy":
			if len(common.Args) == 2 && common.Args[1] == v {
				t.addRoot(common.Args[0])
			}
		}
		return // len, cap, delete, print: no work, no item
	}
	if common.IsInvoke() {
		m := common.Method
		if asArg && handlerMethod(m.Name()) && m.Pkg() != nil && !lockfacts.StdPath(m.Pkg().Path(), t.c.p.Pkg.Path()) {
			t.work(common.Pos(), "the handler "+m.Name()+" called with it")
			return
		}
		if result != nil {
			t.add(result)
		}
		return
	}
	fn := common.StaticCallee()
	if fn == nil {
		if asArg {
			t.work(common.Pos(), "the callback "+valueName(common.Value, "(a function value)")+" called with it")
		}
		return
	}
	if t.s.pkg != nil && fn.Pkg == t.s.pkg && len(fn.Blocks) > 0 {
		for i, a := range common.Args {
			if a == v && i < len(fn.Params) {
				t.add(fn.Params[i])
			}
		}
		if result != nil {
			t.add(result)
		}
		return
	}
	if result != nil {
		t.add(result)
	}
	// rows.Scan(&id, &body), json.Unmarshal(data, &msg): what the callee
	// fills in is the item's
	if !fillsArgs(fn.Name()) {
		return
	}
	for _, a := range common.Args {
		if a != v {
			t.fills(a)
		}
	}
}

// fillsArgs: calls that decode their input into their pointer arguments.
func fillsArgs(name string) bool {
	for _, p := range []string{"Scan", "Unmarshal", "Decode"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// fills marks what an argument lets the callee fill in: a pointer, or the
// pointers packed into a variadic ...any (rows.Scan(&id, &body)).
func (t *itemTracer) fills(a ssa.Value) {
	if mi, ok := a.(*ssa.MakeInterface); ok {
		a = mi.X
	}
	if _, ok := a.Type().Underlying().(*types.Pointer); ok {
		t.addRoot(a)
		return
	}
	sl, ok := a.(*ssa.Slice)
	if !ok {
		return
	}
	arr, ok := sl.X.(*ssa.Alloc)
	if !ok || arr.Referrers() == nil {
		return
	}
	for _, ref := range *arr.Referrers() {
		ia, ok := ref.(*ssa.IndexAddr)
		if !ok || ia.Referrers() == nil {
			continue
		}
		for _, r := range *ia.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == ia {
				t.fills(st.Val)
			}
		}
	}
}

// notItem: an error or a flag that came with the item (the claim's err,
// a found flag) carries none of it on.
func notItem(t types.Type) bool {
	if types.Identical(t, types.Universe.Lookup("error").Type()) {
		return true
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// handlerMethod: interface methods that hand a unit of work to its handler.
func handlerMethod(name string) bool {
	if workMethods[name] {
		return true
	}
	for _, p := range []string{"Handle", "Process", "Consume", "Serve"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// boundedCall: the call gets a context made by context.WithTimeout with a
// constant timeout below the claim's expiry.
func (t *itemTracer) boundedCall(common *ssa.CallCommon) bool {
	if t.expiry <= 0 {
		return false
	}
	for _, a := range common.Args {
		if d, ok := timeoutOf(a); ok && d < t.expiry {
			return true
		}
	}
	return false
}

// timeoutOf returns the constant timeout of a context made by
// context.WithTimeout(parent, d).
func timeoutOf(v ssa.Value) (time.Duration, bool) {
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != 0 {
		return 0, false
	}
	call, ok := ex.Tuple.(*ssa.Call)
	if !ok {
		return 0, false
	}
	fn := call.Common().StaticCallee()
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg.Path() != "context" || fn.Name() != "WithTimeout" || len(call.Common().Args) != 2 {
		return 0, false
	}
	k, ok := call.Common().Args[1].(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int {
		return 0, false
	}
	d, exact := constant.Int64Val(k.Value)
	return time.Duration(d), exact && d > 0
}

// valueName names an SSA value for a message: the source name when it has
// one.
func valueName(v ssa.Value, unnamed string) string {
	switch x := v.(type) {
	case *ssa.Parameter, *ssa.FreeVar:
		return x.Name()
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok {
			return fieldName(fa.X.Type(), fa.Field, unnamed)
		}
		return valueName(x.X, unnamed)
	case *ssa.Field:
		return fieldName(x.X.Type(), x.Field, unnamed)
	case *ssa.FieldAddr:
		return fieldName(x.X.Type(), x.Field, unnamed)
	case *ssa.Alloc:
		if x.Comment != "" {
			return x.Comment
		}
	}
	return unnamed
}

func fieldName(t types.Type, i int, unnamed string) string {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if st, ok := t.Underlying().(*types.Struct); ok && i < st.NumFields() {
		return st.Field(i).Name()
	}
	return unnamed
}
