package effects

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// More shapes of a per-replica flush (ownbatch.go), each read by SSA value
// flow:
//
//   - a local slice built by make and append, every appended element own
//     data (reports = append(reports, newReport(stat)));
//   - a buffer a map field holds: every store into the field is a fresh map,
//     every load of it is only indexed, stored into (MapUpdate), ranged over,
//     measured or deleted from, and every key and value stored into it,
//     anywhere in the package, is own input (the parameters of a function on
//     the package's own request or event path, judged as ownbuffer.go
//     judges them);
//   - a send reached through a closure (go func() { send(ctx, reports, url)
//     }()) that captures such values: the captured variable's every store,
//     in the function and in its closures, is own data, and its address
//     goes nowhere else;
//   - a channel received on that is a subscription handed out by a package
//     of the same module that reaches no shared state (no Reaches fact, not
//     in the knowledge base): the process's own event bus. A channel another
//     module hands out, or one whose package reaches a store, is not shown
//     own data.
//
// The destination of the send (a parameter of the helper used only as the
// URL of the request) is not payload: N replicas posting their own entries
// to one configured URL still send N different payloads.

// ownCaptured: every store into the captured variable cell is own data,
// and the variable is only loaded, stored to and bound into closures.
func (w *ownWalk) ownCaptured(cell *ssa.Alloc, depth int) bool {
	if cell == nil || cell.Referrers() == nil {
		return false
	}
	if w.seen[cell] {
		return true // a cycle: append(reports, ...) reads the variable
	}
	w.seen[cell] = true
	addrs := []ssa.Value{cell}
	for _, fn := range w.fl.funcs {
		for _, fv := range fn.FreeVars {
			if capturedCell(fv, 0) == cell {
				addrs = append(addrs, fv)
			}
		}
	}
	stores := 0
	for _, addr := range addrs {
		if addr.Referrers() == nil {
			continue
		}
		for _, ref := range *addr.Referrers() {
			switch ref := ref.(type) {
			case *ssa.Store:
				if ref.Addr != addr || !w.own(ref.Val, depth+1) {
					return false
				}
				stores++
			case *ssa.UnOp:
				if ref.Op != token.MUL {
					return false
				}
				// A batch request the variable points to (wr :=
				// &request{} captured by a drain closure): every use of
				// the loaded pointer fills it with own data or hands it
				// to the flush (chanbatch.go).
				if pointsToStruct(ref.Type()) && !w.literalUses(ref, depth, 0) {
					return false
				}
			case *ssa.MakeClosure, *ssa.DebugRef:
			case *ssa.MakeInterface, *ssa.Call, *ssa.Defer:
				// &entry handed to an encoder of a dependency that
				// reaches nothing outside the process (ownobject.go)
				if !w.objectUse(ref, addr, depth) {
					return false
				}
			default:
				return false // handed to a call that may fill it
			}
		}
	}
	return stores > 0
}

// ownAppend: append(x, elems...) with x and every element own data.
func (w *ownWalk) ownAppend(c *ssa.CallCommon, depth int) bool {
	for _, a := range c.Args {
		if !w.own(a, depth+1) {
			return false
		}
	}
	return true
}

// ownClockCall: a call of a standard package that reaches nothing outside
// the process (time.Now, strings.Join) with own arguments.
func (w *ownWalk) ownClockCall(c *ssa.CallCommon, depth int) bool {
	g := c.StaticCallee()
	if c.IsInvoke() || g == nil || g.Object() == nil || g.Object().Pkg() == nil || g.Object().Pkg() == w.r.pass.Pkg {
		return false
	}
	pkg := g.Object().Pkg()
	if !standard(pkg.Path()) || outsideAPI(pkg.Path()) || pkg.Path() == "reflect" || pkg.Path() == "unsafe" {
		return false
	}
	for _, a := range c.Args {
		if !w.own(a, depth+1) {
			return false
		}
	}
	return true
}

// ownMapField: every store into the map field is a fresh map, every load of
// it is indexed, filled, ranged over, measured or deleted from, and every
// key and value the package stores into it is own input; something fills
// it.
func (w *ownWalk) ownMapField(field *types.Var) bool {
	if done, ok := w.buffers[field]; ok {
		return done
	}
	w.buffers[field] = false // filled from itself through a cycle: not shown own
	for _, v := range w.fl.stores[field] {
		switch v := v.(type) {
		case *ssa.MakeMap:
			if emptyMap(v) {
				continue
			}
		case *ssa.Const:
			if v.IsNil() {
				continue
			}
		}
		return false // replaced by a map made elsewhere or filled first (a query's answer)
	}
	fill := &ownWalk{r: w.r, fl: w.fl, seen: map[ssa.Value]bool{}, pure: w.pure, buffers: w.buffers, fill: true}
	filled := false
	for _, fn := range w.fl.funcs {
		if w.inTest(fn) {
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
						if ref.Map != ld || !fill.own(ref.Key, 0) || !fill.own(ref.Value, 0) {
							return false
						}
						filled = true
					case *ssa.Lookup, *ssa.Range, *ssa.DebugRef:
					case *ssa.Call:
						bi, ok := ref.Call.Value.(*ssa.Builtin)
						if !ok || bi.Name() != "delete" && bi.Name() != "len" {
							return false // handed to a call that may fill it
						}
					default:
						return false
					}
				}
			}
		}
	}
	w.buffers[field] = filled
	return filled
}

// mapField: the map field that x loads, nil when it is none.
func mapField(x ssa.Value) *types.Var {
	ld, ok := x.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	if _, ok := ld.Type().Underlying().(*types.Map); !ok {
		return nil
	}
	return fieldOf(fa.X.Type(), fa.Field)
}

// ownSubscription: ch is, through phis, conversions and the results of
// this package's functions, nil or a channel returned by a method of a
// package of this module that reaches no shared state (an in-process event
// bus's Subscription.C()).
func (w *ownWalk) ownSubscription(ch ssa.Value, depth int, seen map[ssa.Value]bool) bool {
	if ch == nil || depth > maxDepth {
		return false
	}
	if seen[ch] {
		return true
	}
	seen[ch] = true
	switch v := ch.(type) {
	case *ssa.Const:
		return v.IsNil() // a nil channel delivers nothing
	case *ssa.Phi:
		real := false
		for _, e := range v.Edges {
			if !w.ownSubscription(e, depth+1, seen) {
				return false
			}
			if c, ok := e.(*ssa.Const); !ok || !c.IsNil() {
				real = true
			}
		}
		return real
	case *ssa.ChangeType:
		return w.ownSubscription(v.X, depth+1, seen)
	case *ssa.Extract:
		call, ok := v.Tuple.(*ssa.Call)
		if !ok {
			return false
		}
		g := call.Call.StaticCallee()
		if call.Call.IsInvoke() || g == nil || g.Pkg != v.Parent().Pkg {
			return false
		}
		return w.returnsSubscription(g, v.Index, depth, seen)
	case *ssa.Call:
		if g := v.Call.StaticCallee(); !v.Call.IsInvoke() && g != nil && g.Pkg == v.Parent().Pkg {
			return w.returnsSubscription(g, 0, depth, seen)
		}
		return w.busChannel(&v.Call)
	}
	return false
}

// returnsSubscription: every result i that fn returns is an own
// subscription channel.
func (w *ownWalk) returnsSubscription(fn *ssa.Function, i int, depth int, seen map[ssa.Value]bool) bool {
	returns := 0
	for _, b := range fn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && i < len(ret.Results) {
			if !w.ownSubscription(ret.Results[i], depth+1, seen) {
				return false
			}
			returns++
		}
	}
	return returns > 0
}

// busChannel: the call is a method of a package of this module (not this
// package) that reaches no shared state, and returns a receive channel.
func (w *ownWalk) busChannel(c *ssa.CallCommon) bool {
	var obj *types.Func
	if c.IsInvoke() {
		obj = c.Method
	} else if g := c.StaticCallee(); g != nil {
		obj, _ = g.Object().(*types.Func)
	}
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == w.r.pass.Pkg {
		return false
	}
	sig, _ := obj.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || sig.Results().Len() != 1 {
		return false
	}
	if ch, ok := sig.Results().At(0).Type().Underlying().(*types.Chan); !ok || ch.Dir() == types.SendOnly {
		return false
	}
	pkg := obj.Pkg()
	if !ownModuleCall(w.r.pass, pkg.Path()) || w.r.kb.Knows(pkg.Path()) || w.r.pass.ImportPackageFact(pkg, new(Reaches)) {
		return false
	}
	return true
}

// urlOnly: the parameter is used only as the URL of an HTTP request (the
// send's destination), directly or concatenated into one.
func urlOnly(v ssa.Value, depth int) bool {
	if depth > 3 || v.Referrers() == nil {
		return false
	}
	used := false
	for _, ref := range *v.Referrers() {
		switch ref := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.BinOp:
			if ref.Op != token.ADD || !urlOnly(ref, depth+1) {
				return false
			}
			used = true
		case ssa.CallInstruction:
			if !urlArgument(ref.Common(), v) {
				return false
			}
			used = true
		default:
			return false
		}
	}
	return used
}

// urlArgument: v is exactly the URL argument of a net/http request
// constructor or client call c.
func urlArgument(c *ssa.CallCommon, v ssa.Value) bool {
	g := c.StaticCallee()
	if c.IsInvoke() || g == nil || g.Object() == nil || g.Object().Pkg() == nil || g.Object().Pkg().Path() != "net/http" {
		return false
	}
	idx := -1
	switch g.Name() {
	case "NewRequest", "Get", "Post", "Head", "PostForm":
		idx = 0
		if g.Name() == "NewRequest" {
			idx = 1
		}
		if g.Signature.Recv() != nil {
			idx++ // (*Client).Get: the client first
		}
	case "NewRequestWithContext":
		idx = 2
	}
	if idx < 0 || idx >= len(c.Args) || c.Args[idx] != v {
		return false
	}
	for i, a := range c.Args {
		if i != idx && a == v {
			return false
		}
	}
	return true
}

// constGlobal: a package variable of basic type (a message, a delay) that
// the package only ever sets to constants.
func (w *ownWalk) constGlobal(g *ssa.Global) bool {
	if g.Pkg == nil || g.Pkg.Pkg != w.r.pass.Pkg {
		return false
	}
	if _, ok := g.Type().(*types.Pointer).Elem().Underlying().(*types.Basic); !ok {
		return false
	}
	for _, v := range w.fl.stores[g] {
		if _, ok := v.(*ssa.Const); !ok {
			return false
		}
	}
	return true
}

// ownDepth bounds the own-data walk: a value received on a subscription,
// type-asserted into a local struct, handed to the appender, stored into a
// map field, ranged over and appended to the payload is a dozen steps.
const ownDepth = 14

func loadsField(v ssa.Value, field *types.Var) bool {
	if ct, ok := v.(*ssa.ChangeType); ok {
		v = ct.X
	}
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	return ok && fieldOf(fa.X.Type(), fa.Field) == field
}

func isContext(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// emptyMap: the map m is made and stored without being filled first (the
// drain's replacement, the constructor's): its only uses are stores of it.
func emptyMap(m *ssa.MakeMap) bool {
	if m.Referrers() == nil {
		return false
	}
	for _, ref := range *m.Referrers() {
		switch ref.(type) {
		case *ssa.Store, *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}
