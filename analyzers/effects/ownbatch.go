package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A periodic flush of a batch the process fills itself: a loop receives
// entries on a channel the package made and hands out, or sends only own
// input to (the process's own readers; chanbatch.go), collects them in a
// local map or appends them to a request literal, and a ticker sends the batches that waited too long. Every replica sends
// what it received, so N replicas send N different payloads, not the same
// work N times: per-replica by design (signals.md, "telemetry posting the
// process's own statistics").
//
// The call that reaches the send must be to a function of this package,
// and each of its arguments (the receiver aside) must come, by SSA value
// flow, only from a constant, a context, a scalar field (a configured
// size), a value received on such a channel, or an element of a local
// collection every element of which comes from those. A value from any
// other call (a query, a store read, a claim) or from a field holding a
// collection (filled who knows where) is not shown own data. The helper
// must not reach database/sql (a flush that reads rows and posts them).
//
// A function the values pass through must compute only (computesOnly):
// no channel, no goroutine, no dynamic call, no I/O. What it reads from
// its receiver, and what methods later add to an element already in the
// map (batch.add(e)), is not followed: both are the process's memory.
//
// A function the values pass through may also make side calls: calls
// whose results go only to other side calls and which are handed no
// address of memory (a log line, a span, a metric observation,
// ownbuffer.go's sideCall): they do not make the payload.
//
// A buffer a field holds, filled by the package's write path and drained
// into the payload, is the other own source (ownbuffer.go): a slice field,
// or a map field every key and value of which the package's own event or
// request path stores (ownflush.go). A local slice built by make and
// append counts when every appended element is own data; a send made from
// a go closure counts when each captured variable's every store is; a
// channel handed out by a package of this module that reaches no shared
// state (an in-process event bus's Subscription.C()) counts as an own
// channel, one of another module does not; a helper parameter used only
// as the request's URL is the destination, not payload (ownflush.go); a
// request literal (wr := &request{}) whose slice field the loop appends
// received values to counts when its address goes only to loads, to
// closures that use it so, and to the flush helper (chanbatch.go).
// Not covered (left reported): sends reached through another module's
// code, unless the knowledge base says their receiver deduplicates
// (Alertmanager, effects.yaml).

// OwnBatch returns why the payload of every call in calls is the process's
// own received data, "" when that is not shown for one of them.
func (r *Result) OwnBatch(calls []*ast.CallExpr) string {
	if len(calls) == 0 {
		return ""
	}
	fl := r.flow()
	received, judged := false, 0
	for _, call := range calls {
		if call == nil {
			return ""
		}
		if fl.spawnsItself(call) {
			continue // another worker of the same loop: its sends are the ones judged here
		}
		w := r.ownBatchCall(fl, call)
		if w == nil {
			return ""
		}
		received = received || w.received
		judged++
	}
	if judged == 0 {
		return ""
	}
	if !received {
		return "flushes a buffer that this process's own write path filled: each replica sends its own entries"
	}
	return "flushes a batch of what this process received on its own channel: each replica sends its own entries"
}

// ownBatchCall returns the walk that showed the call's payload own data,
// nil when it is not shown.
func (r *Result) ownBatchCall(fl *flow, call *ast.CallExpr) *ownWalk {
	c := fl.common(call)
	if c == nil || c.IsInvoke() {
		return nil
	}
	callee := c.StaticCallee()
	if callee == nil || callee.Pkg == nil {
		return nil
	}
	if callee.Pkg.Pkg != r.pass.Pkg || reachesSQL(callee, 0, map[*ssa.Function]bool{}) {
		if !r.moduleSend(c) {
			return nil // a client of another package that only sends its arguments (ownsend.go) is followed
		}
	}
	args := c.Args
	if c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}, sink: callee}
	params := callee.Params
	if len(params) > len(args) {
		params = params[len(params)-len(args):]
	}
	for i, a := range args {
		if i < len(params) && urlOnly(params[i], 0) {
			continue // the destination, not the payload (ownflush.go)
		}
		if !w.own(a, 0) {
			return nil
		}
	}
	if !w.received && !w.buffered {
		return nil
	}
	return w
}

// reachesSQL: fn, or a function of its package it calls (three levels
// down), calls into database/sql.
func reachesSQL(fn *ssa.Function, depth int, seen map[*ssa.Function]bool) bool {
	if fn == nil || seen[fn] || depth > 3 {
		return false
	}
	seen[fn] = true
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			ci, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			c := ci.Common()
			var pkg *types.Package
			if c.IsInvoke() {
				pkg = c.Method.Pkg()
			} else if g := c.StaticCallee(); g != nil {
				if g.Pkg == fn.Pkg && reachesSQL(g, depth+1, seen) {
					return true
				}
				if o := g.Object(); o != nil {
					pkg = o.Pkg()
				}
			}
			if pkg != nil && pkg.Path() == "database/sql" {
				return true
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if reachesSQL(anon, depth+1, seen) {
			return true
		}
	}
	return false
}

// ownWalk follows values back to what the process itself received.
type ownWalk struct {
	r        *Result
	fl       *flow
	pure     map[*ssa.Function]bool // computesOnly, memoised
	seen     map[ssa.Value]bool
	received bool                // some value came from an own channel
	buffered bool                // some value was drained from an own buffer (ownbuffer.go)
	buffers  map[*types.Var]bool // ownBuffer, memoised
	// fill: parameters are judged by what the package's calls pass
	// (ownParam), as for the values appended to a buffer.
	fill bool
	// sink: the flush helper whose payload is judged; a batch literal
	// may be handed to it (chanbatch.go), to no other call.
	sink *ssa.Function
	// objects: ownObjectUses, memoised (ownobject.go); made when needed.
	objects map[ssa.Value]bool
	// config: when set, a field of any kind counts when every store into
	// it is own input (configField, ownrefresh.go), memoised here.
	config map[*types.Var]bool
}

func (w *ownWalk) own(v ssa.Value, depth int) bool {
	if v == nil || depth > ownDepth {
		return false
	}
	if done, ok := w.seen[v]; ok {
		// A cycle through a phi is decided by its other edges; a value
		// already judged keeps its answer.
		return done
	}
	w.seen[v] = true
	ok := w.ownValue(v, depth)
	w.seen[v] = ok
	return ok
}

func (w *ownWalk) ownValue(v ssa.Value, depth int) bool {
	if isContext(v.Type()) {
		return true // a context carries no payload
	}
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.Parameter:
		return w.fill && w.ownParam(v, depth)
	case *ssa.UnOp:
		switch v.Op {
		case token.ARROW:
			if w.ownChannel(v.X) {
				w.received = true
				return true
			}
			return false
		case token.MUL:
			switch x := v.X.(type) {
			case *ssa.Alloc:
				if x.Heap {
					return w.ownCaptured(x, depth+1) // captured by a closure
				}
				return w.ownCell(x, depth+1)
			case *ssa.FreeVar:
				return w.ownCaptured(capturedCell(x, 0), depth+1)
			case *ssa.Global:
				return w.constGlobal(x)
			case *ssa.IndexAddr:
				// an element of an own slice (the range over a captured
				// batch that a drain re-queues)
				return w.own(x.X, depth+1)
			case *ssa.FieldAddr:
				if cell, ok := x.X.(*ssa.Alloc); ok {
					if cell.Heap {
						// An escaping literal (wr := &request{}, captured or
						// handed to the flush): its uses are judged whole
						// (ownLiteral, chanbatch.go).
						return w.own(cell, depth+1)
					}
					return w.ownCell(cell, depth+1)
				}
				if w.config != nil {
					// any field, scalar or not, only when the package
					// fills it with configuration (ownrefresh.go)
					return w.configFieldAddr(x, 0)
				}
				// A scalar field of a value in memory (a configured
				// size, a URL): no collection of unknown origin.
				if _, scalar := v.Type().Underlying().(*types.Basic); scalar {
					return true
				}
				switch p := x.X.(type) {
				case *ssa.FreeVar:
					if lit := capturedCell(p, 0); lit != nil {
						return w.own(lit, depth+1) // the same literal, seen from a closure
					}
				case *ssa.UnOp:
					if p.Op == token.MUL && pointsToStruct(p.Type()) {
						// the literal a captured variable points to
						// (ownCaptured judges its uses)
						return w.own(p, depth+1)
					}
				}
				return false
			}
			return false
		}
		return false
	case *ssa.Extract:
		if sel, ok := v.Tuple.(*ssa.Select); ok {
			return w.selectReceived(sel, v.Index)
		}
		return w.own(v.Tuple, depth+1)
	case *ssa.Next:
		rg, ok := v.Iter.(*ssa.Range)
		return ok && w.ownCollection(rg.X, depth+1)
	case *ssa.Lookup:
		return w.ownCollection(v.X, depth+1) && w.own(v.Index, depth+1)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if !w.own(e, depth+1) {
				return false
			}
		}
		return true
	case *ssa.ChangeType:
		return w.own(v.X, depth+1)
	case *ssa.TypeAssert:
		return w.own(v.X, depth+1)
	case *ssa.BinOp:
		return w.own(v.X, depth+1) && w.own(v.Y, depth+1)
	case *ssa.MakeSlice:
		return true // an empty slice to append to
	case *ssa.Alloc:
		return w.ownLiteral(v, depth+1)
	case *ssa.MakeInterface:
		return w.own(v.X, depth+1)
	case *ssa.Convert:
		return w.own(v.X, depth+1)
	case *ssa.Field:
		return w.own(v.X, depth+1)
	case *ssa.Slice:
		if _, ok := v.X.(*ssa.Alloc); !ok {
			return w.own(v.X, depth+1) // a part of an own string or slice
		}
		elems := sliceElems(v) // a variadic argument built by the compiler
		for _, e := range elems {
			if !w.own(e, depth+1) {
				return false
			}
		}
		return len(elems) > 0 || emptyArray(v.X.(*ssa.Alloc)) // make([]T, 0): an empty slice to append to
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok {
			return b.Name() == "append" && w.ownAppend(&v.Call, depth)
		}
		if w.drainCall(&v.Call) {
			// a drain of an own buffer the receiver holds (owndrain.go)
			if !w.fill {
				w.buffered = true
			}
			return true
		}
		if w.ownClockCall(&v.Call, depth) {
			return true
		}
		if w.externalTakes(&v.Call, nil, depth) {
			// a dependency's buffer or encoder: its uses decide (ownobject.go)
			return w.ownResult(v, depth)
		}
		// A constructor or a transformation of this package: its result
		// is made from its arguments.
		g := v.Call.StaticCallee()
		if v.Call.IsInvoke() || g == nil || g.Pkg != v.Parent().Pkg || !w.computesOnly(g, 0) {
			return false
		}
		args := v.Call.Args
		if v.Call.Signature().Recv() != nil && len(args) > 0 {
			args = args[1:] // the process's own object; the method computes only
		}
		for _, a := range args {
			if !w.own(a, depth+1) {
				return false
			}
		}
		if !w.fill && w.readsOwnBuffer(g, 0, map[*ssa.Function]bool{}) {
			w.buffered = true
		}
		return true
	}
	return false
}

// computesOnly: fn reaches no state outside the process: it calls only
// builtins, functions of its own package that compute only, the clock,
// and functions of packages that touch nothing outside (pureDependency:
// a label set's Merge); it receives on no channel.
func (w *ownWalk) computesOnly(fn *ssa.Function, depth int) bool {
	if fn == nil || len(fn.Blocks) == 0 || depth > 3 {
		return false
	}
	if done, ok := w.pure[fn]; ok {
		return done
	}
	w.pure[fn] = true // recursion: decided by the other calls
	ok := w.computesOnlyBody(fn, depth)
	w.pure[fn] = ok
	return ok
}

func (w *ownWalk) computesOnlyBody(fn *ssa.Function, depth int) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.UnOp, *ssa.Send, *ssa.Go:
				if waitsOrSpawns(in) {
					return false
				}
			case ssa.CallInstruction:
				c := in.Common()
				if _, builtin := c.Value.(*ssa.Builtin); builtin {
					continue
				}
				g := c.StaticCallee()
				switch {
				case c.IsInvoke() || g == nil:
				case g.Pkg == fn.Pkg:
					if w.computesOnly(g, depth+1) {
						continue
					}
				default:
					if o := g.Object(); o != nil && w.pureDependency(o.Pkg()) {
						continue
					}
				}
				if !sideCall(in, 0) {
					return false
				}
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if !w.computesOnly(anon, depth+1) {
			return false
		}
	}
	return true
}

// selectReceived: the i-th value of a select's tuple (index, recvOk, then
// one value per receive case) is received on an own channel.
func (w *ownWalk) selectReceived(sel *ssa.Select, i int) bool {
	k := 2
	for _, st := range sel.States {
		if st.Dir != types.RecvOnly {
			continue
		}
		if k == i {
			if w.ownChannel(st.Chan) {
				w.received = true
				return true
			}
			return false
		}
		k++
	}
	return false
}

// ownCell: every value stored into the local variable cell (or into one of
// its fields) is own data, and its address goes nowhere else.
func (w *ownWalk) ownCell(cell *ssa.Alloc, depth int) bool {
	if cell.Heap || cell.Referrers() == nil {
		return false
	}
	var stored func(addr ssa.Value, refs []ssa.Instruction) bool
	stored = func(addr ssa.Value, refs []ssa.Instruction) bool {
		for _, ref := range refs {
			switch ref := ref.(type) {
			case *ssa.FieldAddr: // a field of an embedded struct
				if ref.Referrers() == nil || !stored(ref, *ref.Referrers()) {
					return false
				}
			case *ssa.Store:
				if ref.Addr != addr || !w.own(ref.Val, depth+1) {
					return false
				}
			case *ssa.UnOp:
				if ref.Op != token.MUL {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	for _, ref := range *cell.Referrers() {
		switch ref := ref.(type) {
		case *ssa.FieldAddr:
			if ref.Referrers() == nil || !stored(ref, *ref.Referrers()) {
				return false
			}
		default:
			if !stored(cell, []ssa.Instruction{ref}) {
				return false
			}
		}
	}
	return true
}

// ownCollection: x is a local map every key and element of which is own
// data, used only to be filled, read, ranged over and deleted from.
func (w *ownWalk) ownCollection(x ssa.Value, depth int) bool {
	var cell *ssa.Alloc
	switch x := x.(type) {
	case *ssa.MakeMap:
		return w.ownMapUses(x, nil, depth)
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return false
		}
		switch a := x.X.(type) {
		case *ssa.Alloc:
			cell = a
		case *ssa.FreeVar:
			cell = capturedCell(a, 0)
		case *ssa.FieldAddr:
			// A map field the package's own path fills (ownflush.go).
			field := mapField(x)
			if field == nil || !w.ownMapField(field) {
				return false
			}
			if !w.fill {
				w.buffered = true
			}
			return true
		}
	}
	if cell == nil || cell.Referrers() == nil {
		return false
	}
	// A local variable holding the map (captured by a closure): every
	// store is a fresh map, every load is used as one.
	var uses []ssa.Value
	addrs := []ssa.Value{cell}
	for _, fn := range w.fl.funcs {
		for _, fv := range fn.FreeVars {
			if capturedCell(fv, 0) == cell {
				addrs = append(addrs, fv)
			}
		}
	}
	for _, addr := range addrs {
		for _, ref := range *addr.Referrers() {
			switch ref := ref.(type) {
			case *ssa.Store:
				if ref.Addr != addr {
					return false
				}
				mm, ok := ref.Val.(*ssa.MakeMap)
				if !ok {
					return false
				}
				uses = append(uses, mm)
			case *ssa.UnOp:
				if ref.Op != token.MUL {
					return false
				}
				uses = append(uses, ref)
			case *ssa.MakeClosure:
				// bound into a closure: its free variable is checked above
			default:
				return false
			}
		}
	}
	for _, u := range uses {
		if !w.ownMapUses(u, cell, depth) {
			return false
		}
	}
	return len(uses) > 0
}

// ownMapUses: every use of the map m fills it with own data, reads it or
// deletes from it; cell is the local variable holding it (nil when none).
func (w *ownWalk) ownMapUses(m ssa.Value, cell *ssa.Alloc, depth int) bool {
	if m.Referrers() == nil {
		return false
	}
	for _, ref := range *m.Referrers() {
		switch ref := ref.(type) {
		case *ssa.MapUpdate:
			if !w.own(ref.Key, depth+1) || !w.own(ref.Value, depth+1) {
				return false
			}
		case *ssa.Lookup, *ssa.Range, *ssa.DebugRef:
		case *ssa.Store:
			if cell == nil || ref.Addr != cell {
				return false
			}
		case *ssa.Call:
			b, ok := ref.Call.Value.(*ssa.Builtin)
			if !ok || b.Name() != "delete" && b.Name() != "len" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// waitsOrSpawns: a channel receive, a send or a go statement: a body with
// one coordinates with other goroutines, so it is neither a pure
// computation nor a plain send.
func waitsOrSpawns(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.UnOp:
		return in.Op == token.ARROW
	case *ssa.Send, *ssa.Go:
		return true
	}
	return false
}
