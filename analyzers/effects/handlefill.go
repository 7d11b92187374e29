package effects

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Who fills a handle collection (ownhandles.go): the package's own request
// path, one fresh handle at a time, outside any loop over a listing.

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
// ranges over something, in a function the flush does not reach (nor, so,
// do the callers that reach it), whose callers (two levels up) call it
// outside such loops; a function nothing in the package calls is exported.
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
				if inRangeLoop(b) || !h.requestCallers(g, depth+1) {
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
