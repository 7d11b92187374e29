package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A periodic flush of the items this process holds open itself: a field
// holds a map or slice of handles (pointers to a struct type of this
// package: the files a mount has open, the sessions a server keeps), each
// one made fresh by the package (&T{...} or a constructor returning one)
// and stored one at a time on the process's own request path (an Open
// that creates the handle), and the tick ranges over the collection and
// hands each handle, and nothing else of unknown origin, to the helper
// that writes it out. N replicas flush N disjoint sets of their own open
// items: per-replica by design, like the own buffers of ownbuffer.go, whose
// entries are own input; here only the identity of the items is own (their
// content may have been looked up in shared state when they were opened),
// so what decides is who fills the collection:
//
//   - every store into the field is a fresh empty collection (the
//     constructor's) or an append of a fresh handle to the field itself;
//   - every load of it is only indexed, filled, ranged over, measured or
//     deleted from (handed to a call, it may be filled who knows where);
//   - every map update stores a fresh handle, outside any loop that ranges
//     over something (a listing, rows, a channel), in a function the flush
//     does not call, and every caller of that function in the package (two
//     levels up) calls it outside such a loop too; a filler nothing in the
//     package calls must be exported (its callers are the request path).
//
// The flush helper (the callee of the job's call, of this package, not
// reaching database/sql) ranges over the collection; each call it makes
// (and its closures make) is a builtin, a sync or side call (a log line), a
// computation, or a call of a function of this package, not reaching
// database/sql, handed only handles of the collection (through local
// slices, closures' parameters) and own scalars. A collection filled from a
// shared listing (the same loop storing each listed entry) stays reported.
// Not followed: what the helper does with a handle beyond reaching
// database/sql (a helper that lists shared state for each handle and writes
// that is taken as writing the handle).

// OwnHandles returns why every call in calls flushes only the process's own
// open handles, "" when that is not shown for one of them.
func (r *Result) OwnHandles(calls []*ast.CallExpr) string {
	if len(calls) == 0 {
		return ""
	}
	fl := r.flow()
	for _, call := range calls {
		if call == nil || !r.ownHandlesCall(fl, call) {
			return ""
		}
	}
	return "flushes the handles this process opened itself (a collection its own request path fills): each replica writes its own open items"
}

func (r *Result) ownHandlesCall(fl *flow, call *ast.CallExpr) bool {
	c := fl.common(call)
	if c == nil || c.IsInvoke() {
		return false
	}
	g := c.StaticCallee()
	if g == nil || g.Pkg == nil || g.Pkg.Pkg != r.pass.Pkg || reachesSQL(g, 0, map[*ssa.Function]bool{}) {
		return false
	}
	w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}}
	args := c.Args
	if c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	for _, a := range args {
		if !plainOwn(a, 0) {
			return false
		}
	}
	h := &handleWalk{w: w, flush: g, fields: map[*types.Var]bool{}, params: map[*ssa.Parameter]bool{}}
	return h.rangesHandles(g) && h.itemsOnly(g, 0) && h.handed
}

// handleWalk judges one flush helper.
type handleWalk struct {
	w      *ownWalk
	flush  *ssa.Function
	fields map[*types.Var]bool     // handleField, memoised
	params map[*ssa.Parameter]bool // closure parameters bound to handles
	handed bool                    // some call was handed a handle
}

// rangesHandles: fn ranges over a handle collection field.
func (h *handleWalk) rangesHandles(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Range:
				if h.handleLoad(in.X) {
					return true
				}
			case *ssa.IndexAddr:
				if h.handleLoad(in.X) {
					return true // a range over a slice field
				}
			}
		}
	}
	return false
}

// handleLoad: x loads a field that is a handle collection.
func (h *handleWalk) handleLoad(x ssa.Value) bool {
	ld, ok := x.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return false
	}
	f := fieldOf(fa.X.Type(), fa.Field)
	return f != nil && h.handleField(f)
}

// itemsOnly: every call fn (or a closure it makes) makes is harmless or a
// call of this package handed only handles and own scalars.
func (h *handleWalk) itemsOnly(fn *ssa.Function, depth int) bool {
	if depth > 2 {
		return false
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			ci, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if !h.itemCall(ci, depth) {
				return false
			}
		}
	}
	return true
}

func (h *handleWalk) itemCall(ci ssa.CallInstruction, depth int) bool {
	c := ci.Common()
	if _, ok := c.Value.(*ssa.Builtin); ok {
		return true
	}
	if mc, ok := c.Value.(*ssa.MakeClosure); ok {
		// go func(handle *T) { flushOne(handle) }(fh): the closure's
		// parameters are what the call hands it; its body is judged here.
		anon := mc.Fn.(*ssa.Function)
		for i, a := range c.Args {
			if h.item(a, 0) {
				h.params[anon.Params[i]] = true
			} else if !plainOwn(a, 0) {
				return false
			}
		}
		return h.itemsOnly(anon, depth+1)
	}
	if c.IsInvoke() {
		return false
	}
	g := c.StaticCallee()
	if g == nil {
		return false
	}
	if o := g.Object(); o != nil && o.Pkg() != nil && (o.Pkg().Path() == "sync" || o.Pkg().Path() == "sync/atomic") {
		return true // the collection's lock, a wait group
	}
	if g.Pkg != h.flush.Pkg {
		return sideCall(ci, 0) // a log line; a call of this package is judged below, even one whose result is dropped
	}
	if reachesSQL(g, 0, map[*ssa.Function]bool{}) {
		return false
	}
	if h.w.computesOnly(g, 0) {
		return true
	}
	args := c.Args
	if c.Signature().Recv() != nil && len(args) > 0 {
		if h.item(args[0], 0) {
			h.handed = true
		}
		args = args[1:] // the process's own object, or a handle
	}
	for _, a := range args {
		switch {
		case h.item(a, 0):
			h.handed = true
		case plainOwn(a, 0):
		default:
			return false
		}
	}
	return true
}

// item: v is a handle of an own collection, or a field of one: a value of a
// range over it, an element of a local slice of such values, a closure
// parameter bound to one.
func (h *handleWalk) item(v ssa.Value, depth int) bool {
	if depth > ownDepth {
		return false
	}
	switch v := v.(type) {
	case *ssa.Extract:
		if nx, ok := v.Tuple.(*ssa.Next); ok && v.Index > 0 {
			rg, ok := nx.Iter.(*ssa.Range)
			return ok && h.handleLoad(rg.X)
		}
	case *ssa.Parameter:
		return h.params[v]
	case *ssa.UnOp:
		if v.Op != token.MUL {
			return false
		}
		switch x := v.X.(type) {
		case *ssa.IndexAddr:
			return h.handleLoad(x.X) || h.itemSlice(x.X, depth+1, map[ssa.Value]bool{})
		case *ssa.FieldAddr:
			return h.item(x.X, depth+1) // a field of the handle
		}
	case *ssa.Field:
		return h.item(v.X, depth+1)
	case *ssa.ChangeType:
		return h.item(v.X, depth+1)
	}
	return false
}

// itemSlice: s is a local slice every element of which is a handle (nil,
// then appended to in a loop over the collection).
func (h *handleWalk) itemSlice(s ssa.Value, depth int, seen map[ssa.Value]bool) bool {
	if depth > ownDepth {
		return false
	}
	if seen[s] {
		return true // the loop's own edge
	}
	seen[s] = true
	switch s := s.(type) {
	case *ssa.Const:
		return s.IsNil()
	case *ssa.Phi:
		for _, e := range s.Edges {
			if !h.itemSlice(e, depth+1, seen) {
				return false
			}
		}
		return true
	case *ssa.Call:
		b, ok := s.Call.Value.(*ssa.Builtin)
		if !ok || b.Name() != "append" || len(s.Call.Args) != 2 || !h.itemSlice(s.Call.Args[0], depth+1, seen) {
			return false
		}
		elems := sliceElems(s.Call.Args[1])
		for _, e := range elems {
			if !h.item(e, depth+1) {
				return false
			}
		}
		return len(elems) > 0
	}
	return false
}

// plainOwn: v is a constant, a context, or made of the fields of the
// method's receiver (m.url+"/entry"): not a field of a value of unknown
// origin (a listed record's name), which ownWalk's scalar-field rule would
// take for configuration.
func plainOwn(v ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	if isContext(v.Type()) {
		return true
	}
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.BinOp:
		return plainOwn(v.X, depth+1) && plainOwn(v.Y, depth+1)
	case *ssa.ChangeType:
		return plainOwn(v.X, depth+1)
	case *ssa.Convert:
		return plainOwn(v.X, depth+1)
	case *ssa.MakeInterface:
		return plainOwn(v.X, depth+1)
	case *ssa.UnOp:
		if fa, ok := v.X.(*ssa.FieldAddr); ok && v.Op == token.MUL {
			return receiverRooted(fa.X, depth+1)
		}
	}
	return false
}

// receiverRooted: x is the receiver of the method it is used in (or, in a
// closure, the enclosing method's receiver it captures), or a pointer field
// loaded from it.
func receiverRooted(x ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch x := x.(type) {
	case *ssa.Parameter:
		fn := x.Parent()
		return fn.Signature.Recv() != nil && len(fn.Params) > 0 && fn.Params[0] == x
	case *ssa.FreeVar:
		top := x.Parent()
		for top.Parent() != nil {
			top = top.Parent()
		}
		return top.Signature.Recv() != nil && len(top.Params) > 0 && top.Params[0].Name() == x.Name() && types.Identical(top.Params[0].Type(), x.Type())
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			return receiverRooted(fa.X, depth+1)
		}
	}
	return false
}
