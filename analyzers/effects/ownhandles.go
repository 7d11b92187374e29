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

// handleField: field is a map or slice of handles this process's own
// request path fills, one fresh handle at a time (see the file comment).
func (h *handleWalk) handleField(field *types.Var) bool {
	if done, ok := h.fields[field]; ok {
		return done
	}
	h.fields[field] = false
	ok := handleType(field.Type(), h.flush.Pkg.Pkg) && h.handleStores(field) && h.handleLoads(field)
	h.fields[field] = ok
	return ok
}

// handleType: map[K]*T or []*T, T a struct type declared in pkg.
func handleType(t types.Type, pkg *types.Package) bool {
	var elem types.Type
	switch t := t.Underlying().(type) {
	case *types.Map:
		elem = t.Elem()
	case *types.Slice:
		elem = t.Elem()
	default:
		return false
	}
	p, ok := elem.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() != pkg {
		return false
	}
	_, ok = n.Underlying().(*types.Struct)
	return ok
}

// handleStores: every value stored into the field is a fresh empty
// collection or an append of one fresh handle to the field, made on the
// request path.
func (h *handleWalk) handleStores(field *types.Var) bool {
	for _, v := range h.w.fl.stores[field] {
		if st, ok := v.(ssa.Instruction); ok && h.w.inTest(st.Parent()) {
			continue
		}
		switch v := v.(type) {
		case *ssa.MakeMap:
			if emptyMap(v) {
				continue
			}
		case *ssa.MakeSlice:
			continue
		case *ssa.Const:
			if v.IsNil() {
				continue
			}
		case *ssa.Call:
			if b, ok := v.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" && len(v.Call.Args) == 2 && loadsField(v.Call.Args[0], field) {
				elems := sliceElems(v.Call.Args[1])
				if len(elems) == 1 && freshHandle(elems[0]) && h.requestFill(v) {
					continue
				}
			}
		}
		return false
	}
	return true
}

// handleLoads: every load of the field is indexed, filled with a fresh
// handle on the request path, ranged over, measured, deleted from or the
// base of its own append; at least one fills it.
func (h *handleWalk) handleLoads(field *types.Var) bool {
	filled := false
	for _, fn := range h.w.fl.funcs {
		if h.w.inTest(fn) {
			continue
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				ld, ok := in.(*ssa.UnOp)
				if !ok || !loadsField(ld, field) || ld.Referrers() == nil {
					continue
				}
				for _, ref := range *ld.Referrers() {
					switch ref := ref.(type) {
					case *ssa.MapUpdate:
						if ref.Map != ld || !freshHandle(ref.Value) || !h.requestFill(ref) {
							return false
						}
						filled = true
					case *ssa.Lookup, *ssa.Range, *ssa.IndexAddr, *ssa.Index, *ssa.DebugRef:
					case *ssa.Call:
						bi, ok := ref.Call.Value.(*ssa.Builtin)
						switch {
						case ok && (bi.Name() == "delete" || bi.Name() == "len"):
						case ok && bi.Name() == "append" && ref.Call.Args[0] == ld:
							filled = true // judged by handleStores
						default:
							return false // handed to a call that may fill it
						}
					default:
						return false
					}
				}
			}
		}
	}
	return filled
}

// freshHandle: v is a handle made here (&T{...}) or by a constructor of
// this package that returns one it made.
func freshHandle(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Alloc:
		return v.Heap
	case *ssa.Call:
		g := v.Call.StaticCallee()
		if v.Call.IsInvoke() || g == nil || g.Pkg != v.Parent().Pkg || len(g.Blocks) == 0 {
			return false
		}
		returns := 0
		for _, b := range g.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok {
				continue
			}
			if len(ret.Results) != 1 {
				return false
			}
			if a, ok := ret.Results[0].(*ssa.Alloc); !ok || !a.Heap {
				return false
			}
			returns++
		}
		return returns > 0
	}
	return false
}

// requestFill: the fill in is on the request path: not inside a loop that
// ranges over something, in a function the flush does not reach, whose
// callers (two levels up) call it outside such loops; a function nothing
// in the package calls is exported.
func (h *handleWalk) requestFill(in ssa.Instruction) bool {
	fn := in.Parent()
	if inRangeLoop(in.Block()) || h.reaches(h.flush, fn, 0, map[*ssa.Function]bool{}) {
		return false
	}
	return h.requestCallers(fn, 0)
}

func (h *handleWalk) requestCallers(fn *ssa.Function, depth int) bool {
	for fn.Parent() != nil {
		fn = fn.Parent() // a closure: judged by its enclosing function
	}
	if depth > 2 {
		return true
	}
	called := false
	for _, g := range h.w.fl.funcs {
		if h.w.inTest(g) {
			continue
		}
		for _, b := range g.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok || ci.Common().StaticCallee() != fn {
					continue
				}
				called = true
				if inRangeLoop(b) || h.reaches(h.flush, g, 0, map[*ssa.Function]bool{}) || !h.requestCallers(g, depth+1) {
					return false
				}
			}
		}
	}
	return called || fn.Object() != nil && fn.Object().Exported()
}

// reaches: from calls to (statically, in its package, three levels down).
func (h *handleWalk) reaches(from, to *ssa.Function, depth int, seen map[*ssa.Function]bool) bool {
	if from == nil || depth > 3 || seen[from] {
		return false
	}
	if from == to {
		return true
	}
	seen[from] = true
	for _, b := range from.Blocks {
		for _, in := range b.Instrs {
			if ci, ok := in.(ssa.CallInstruction); ok {
				if g := ci.Common().StaticCallee(); g != nil && g.Pkg == from.Pkg && h.reaches(g, to, depth+1, seen) {
					return true
				}
			}
		}
	}
	for _, anon := range from.AnonFuncs {
		if h.reaches(anon, to, depth+1, seen) {
			return true
		}
	}
	return false
}

// inRangeLoop: b is in a natural loop of its function that iterates over
// something: a range over a map or string, a receive, an index advanced by
// the loop (a range over a slice). A retry loop (for { ... }) is none.
func inRangeLoop(b *ssa.BasicBlock) bool {
	for _, hd := range b.Parent().Blocks {
		if !hd.Dominates(b) {
			continue
		}
		for _, p := range hd.Preds {
			if !hd.Dominates(p) {
				continue // not a back edge
			}
			body := loopBody(hd, p)
			if body[b] && iterates(hd, body) {
				return true
			}
		}
	}
	return false
}

// loopBody: the blocks of the natural loop of the back edge latch -> hd.
func loopBody(hd, latch *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	body := map[*ssa.BasicBlock]bool{hd: true}
	stack := []*ssa.BasicBlock{latch}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if body[x] {
			continue
		}
		body[x] = true
		stack = append(stack, x.Preds...)
	}
	return body
}

func iterates(hd *ssa.BasicBlock, body map[*ssa.BasicBlock]bool) bool {
	phis := map[ssa.Value]bool{}
	for _, in := range hd.Instrs {
		if phi, ok := in.(*ssa.Phi); ok {
			phis[phi] = true
		}
	}
	for b := range body {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Next:
				return true
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					return true
				}
			case *ssa.Select:
				return true
			case *ssa.IndexAddr:
				if loopIndex(in.Index, hd, phis) {
					return true
				}
			case *ssa.Index:
				if loopIndex(in.Index, hd, phis) {
					return true
				}
			}
		}
	}
	return false
}

// loopIndex: i is a phi of the loop header or a step of one computed there
// (a range over a slice advances its index in the header).
func loopIndex(i ssa.Value, hd *ssa.BasicBlock, phis map[ssa.Value]bool) bool {
	if phis[i] {
		return true
	}
	op, ok := i.(*ssa.BinOp)
	return ok && op.Block() == hd && (phis[op.X] || phis[op.Y])
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
