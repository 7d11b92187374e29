package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A buffer type of another package that the flushing type embeds (or holds
// in a field): a thread-safe sample buffer whose exported Add appends what
// its callers hand it and whose exported drain returns the slice and
// resets it. The flush calls the promoted drain (o.GetBuffered(), a call of
// (*buf.Buffer).GetBuffered on &o.Buffer); go/ssa has no body for it in the
// flushing package, so the buffer package says so in a fact: the method
// returns nothing but what an own buffer of its receiver holds (ownbuffer.go:
// every store into the field is fresh or an append of own input, the input
// of its exported write path). The drained value then counts as own data,
// as a drain of the package's own buffer does. A buffer the package fills
// from a query, a buffer type whose drain returns anything else, and a
// payload read from shared storage beside it are not shown own, and the
// flush stays reported.

// Drain is a method's fact: its result is a drain of an own buffer its
// receiver holds.
type Drain struct{}

// AFact marks Drain as a fact.
func (*Drain) AFact() {}

// drainCandidates: the package declares an exported method returning one
// slice that resets a field of its receiver, and some method appends to a
// field of its receiver: only then is SSA built to look for drains in a
// package that reaches nothing shared.
func drainCandidates(files []*ast.File, info *types.Info) bool {
	drains, appends := false, false
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 {
				continue
			}
			recv := info.Defs[fd.Recv.List[0].Names[0]]
			onRecv := func(e ast.Expr) bool {
				sel, ok := e.(*ast.SelectorExpr)
				if !ok {
					return false
				}
				id, ok := sel.X.(*ast.Ident)
				return ok && recv != nil && info.Uses[id] == recv
			}
			slice := false
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok && fn.Exported() {
				if res := fn.Type().(*types.Signature).Results(); res.Len() == 1 {
					_, slice = res.At(0).Type().Underlying().(*types.Slice)
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, l := range n.Lhs {
						drains = drains || slice && onRecv(l)
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "append" && len(n.Args) > 0 {
						appends = appends || onRecv(n.Args[0])
					}
				}
				return true
			})
		}
	}
	return drains && appends
}

// exportDrains exports the Drain fact of every exported method of the
// package that drains an own buffer of its receiver.
func (r *Result) exportDrains() {
	fl := r.flow()
	w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}}
	for _, fn := range fl.funcs {
		if o, ok := fn.Object().(*types.Func); ok && o.Exported() && fn.Parent() == nil && !w.inTest(fn) && w.drains(fn) {
			r.pass.ExportObjectFact(o, &Drain{})
		}
	}
}

// drains: fn is a method whose every returned value is nil or a load of
// a slice field of its receiver that is an own buffer, at least one such.
func (w *ownWalk) drains(fn *ssa.Function) bool {
	if fn.Signature.Recv() == nil || len(fn.Params) == 0 || fn.Signature.Results().Len() != 1 {
		return false
	}
	recv := fn.Params[0]
	loaded := false
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) != 1 {
			continue
		}
		ok, one := w.drainedValue(ret.Results[0], recv, 0)
		if !ok {
			return false
		}
		loaded = loaded || one
	}
	return loaded
}

// drainedValue: v is nil, or a load of an own buffer field of recv (ok),
// one of them through phis; one reports a load.
func (w *ownWalk) drainedValue(v ssa.Value, recv *ssa.Parameter, depth int) (ok, one bool) {
	if depth > 4 {
		return false, false
	}
	switch v := v.(type) {
	case *ssa.Const:
		return v.IsNil(), false
	case *ssa.Phi:
		for _, e := range v.Edges {
			ok, o := w.drainedValue(e, recv, depth+1)
			if !ok {
				return false, false
			}
			one = one || o
		}
		return true, one
	case *ssa.UnOp:
		if cell, ok := v.X.(*ssa.Alloc); ok && v.Op == token.MUL && !cell.Heap && cell.Referrers() != nil {
			// the result slot of a function with a defer: every value
			// stored into it
			for _, ref := range *cell.Referrers() {
				switch ref := ref.(type) {
				case *ssa.Store:
					ok, o := w.drainedValue(ref.Val, recv, depth+1)
					if !ok {
						return false, false
					}
					one = one || o
				case *ssa.UnOp, *ssa.DebugRef:
				default:
					return false, false
				}
			}
			return true, one
		}
		fa, isField := v.X.(*ssa.FieldAddr)
		if v.Op != token.MUL || !isField || fa.X != recv {
			return false, false
		}
		field := bufferField(v)
		return field != nil && w.ownBuffer(field), true
	}
	return false, false
}

// drainCall: the call is to a method the Drain fact (or, in this package,
// the same test) names. Any instance of the buffer type is process memory
// that only the type's write path fills, embedded or held in a field.
func (w *ownWalk) drainCall(c *ssa.CallCommon) bool {
	if c.IsInvoke() || len(c.Args) == 0 {
		return false
	}
	g := c.StaticCallee()
	if g == nil || g.Signature.Recv() == nil {
		return false
	}
	o, ok := g.Object().(*types.Func)
	if !ok || o.Pkg() == nil {
		return false
	}
	if o.Pkg() == w.r.pass.Pkg {
		return len(g.Blocks) > 0 && w.drains(g)
	}
	return w.r.pass.ImportObjectFact(o, new(Drain))
}
