package effects

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// The second source of a per-replica flush (ownbatch.go): a buffer a field
// holds, which the package fills only with what its callers hand it (the
// process's own request path: a WriteEntry(ts, line) appending an entry)
// and which a method of the package drains into the payload. Every
// replica sends what its own callers wrote, not the same work N times.
//
// The field is a slice; every store into it, anywhere in the package, is a
// fresh value (make, nil, a literal: the drain) or append(field, x...) with
// x made, by SSA value flow, from constants, contexts, scalar fields and
// the parameters of the appending function. A parameter counts when every
// call of the function inside the package passes such a value, and, for an
// exported function, its callers outside are the request path. A value
// read from a store or a query in the package (rows scanned, then handed
// to the appender) is none: the buffer then carries shared work and the
// flush stays reported.

// readsOwnBuffer: fn, or a function of its package it calls (three levels
// down), loads a slice field that is an own buffer.
func (w *ownWalk) readsOwnBuffer(fn *ssa.Function, depth int, seen map[*ssa.Function]bool) bool {
	if fn == nil || seen[fn] || depth > 3 {
		return false
	}
	seen[fn] = true
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.UnOp:
				if field := bufferField(in); field != nil && w.ownBuffer(field) {
					return true
				}
			case ssa.CallInstruction:
				if g := in.Common().StaticCallee(); g != nil && g.Pkg == fn.Pkg && w.readsOwnBuffer(g, depth+1, seen) {
					return true
				}
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if w.readsOwnBuffer(anon, depth+1, seen) {
			return true
		}
	}
	return false
}

// bufferField: the slice field that the load ld reads, nil when it is none.
func bufferField(ld *ssa.UnOp) *types.Var {
	if ld.Op != token.MUL {
		return nil
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	if _, ok := ld.Type().Underlying().(*types.Slice); !ok {
		return nil
	}
	return fieldOf(fa.X.Type(), fa.Field)
}

// ownBuffer: every value the package stores into field is fresh or an
// append of own input to the field itself, and at least one is such an
// append (something fills it).
func (w *ownWalk) ownBuffer(field *types.Var) bool {
	if done, ok := w.buffers[field]; ok {
		return done
	}
	w.buffers[field] = false // a buffer filled from itself through a cycle is not shown own
	fill := &ownWalk{r: w.r, fl: w.fl, seen: map[ssa.Value]bool{}, pure: w.pure, buffers: w.buffers, fill: true}
	appended := false
	for _, v := range w.fl.stores[field] {
		if st, ok := v.(ssa.Instruction); ok && w.inTest(st.Parent()) {
			continue
		}
		switch v := v.(type) {
		case *ssa.MakeSlice:
			continue
		case *ssa.Const:
			if v.IsNil() {
				continue
			}
		case *ssa.Slice:
			if _, ok := v.X.(*ssa.Alloc); ok {
				continue // a composite literal
			}
		case *ssa.Call:
			if b, ok := v.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" && len(v.Call.Args) == 2 &&
				loadsField(v.Call.Args[0], field) && fill.own(v.Call.Args[1], 0) {
				appended = true
				continue
			}
		}
		return false
	}
	w.buffers[field] = appended
	return appended
}

// ownParam: every call of the parameter's function inside the package
// passes own input there; a function nothing in the package calls must be
// exported (its callers are the request path).
func (w *ownWalk) ownParam(p *ssa.Parameter, depth int) bool {
	fn := p.Parent()
	if fn == nil || fn.Parent() != nil || fn.Object() == nil {
		return false // a closure: its caller is not followed
	}
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	if idx < 0 {
		return false
	}
	recv := fn.Signature.Recv() != nil
	if recv && idx == 0 {
		return false // the receiver is no input
	}
	called := false
	for _, g := range w.fl.funcs {
		if w.inTest(g) {
			continue // a test's calls are not the deployed request path
		}
		for _, b := range g.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok {
					continue
				}
				c := ci.Common()
				var arg ssa.Value
				switch {
				case !c.IsInvoke() && c.StaticCallee() == fn:
					arg = c.Args[idx]
				case c.IsInvoke() && recv && c.Method.Name() == fn.Name() && idx-1 < len(c.Args):
					// through an interface the method may implement
					arg = c.Args[idx-1]
				default:
					continue
				}
				called = true
				if !w.own(arg, depth+1) {
					return false
				}
			}
		}
	}
	return called || fn.Object().Exported()
}

// sideCall: a call whose results reach nothing but other side calls and
// which is handed no address of memory (a log line, a span, a metric
// observation): it does not make the payload, whatever it does besides.
// What it does besides is the effects analysis's business.
func sideCall(in ssa.CallInstruction, depth int) bool {
	if depth > 3 {
		return false
	}
	c := in.Common()
	for i, a := range c.Args {
		if i == 0 && !c.IsInvoke() && c.Signature().Recv() != nil {
			if _, local := a.(*ssa.Alloc); local {
				return false
			}
			continue // a logger, a metric vector the receiver holds
		}
		if !outOnly(a, 0) {
			return false
		}
	}
	v, ok := in.(*ssa.Call)
	if !ok || v.Referrers() == nil {
		return true
	}
	return resultsToSideCalls(v, *v.Referrers(), depth)
}

func resultsToSideCalls(v ssa.Value, refs []ssa.Instruction, depth int) bool {
	for _, ref := range refs {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.Extract:
			if ref.Referrers() != nil && !resultsToSideCalls(ref, *ref.Referrers(), depth) {
				return false
			}
		case ssa.CallInstruction:
			if !sideCall(ref, depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// outOnly: a value handed to a side call carries no address of memory the
// function reads afterwards: a scalar, a string, an interface value loaded
// from a field (a logger), a boxed scalar, a variadic list of those.
func outOnly(v ssa.Value, depth int) bool {
	if depth > 3 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.MakeInterface:
		return outOnly(v.X, depth+1)
	case *ssa.Slice:
		if _, ok := v.X.(*ssa.Alloc); !ok {
			return false
		}
		for _, e := range sliceElems(v) {
			if !outOnly(e, depth+1) {
				return false
			}
		}
		return true
	}
	switch v.Type().Underlying().(type) {
	case *types.Basic, *types.Interface, *types.Signature:
		return true
	case *types.Struct:
		return true // a value copy (an attribute, an option)
	}
	return false
}

// inTest: fn is declared in a _test.go file.
func (w *ownWalk) inTest(fn *ssa.Function) bool {
	if fn == nil {
		return false
	}
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return strings.HasSuffix(w.r.pass.Fset.Position(fn.Pos()).Filename, "_test.go")
}
