package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Leader work left running when the lease maintenance returns.
//
// A leaser acquires a lock, derives a per-term context (WithCancel,
// WithTimeout), starts the protected work on it (a go statement or a
// callback handed the context), then blocks in a maintenance function of
// its package: a loop renewing the lease (isRenew: a renewal of the
// knowledge base, or a Renew/Refresh/Extend/KeepAlive/Heartbeat method of
// a lock type) that returns when a renewal fails. That return is the one
// place that learns of the loss. When, on some path from it, the function
// goes back to its loop's head (to wait and acquire again) or into another
// unbounded wait without calling the term's cancel (or an enclosing
// context's cancel made here), the work keeps running while another
// replica acquires the lock and starts it too. A `defer cancel()` does not
// stop the path: inside a loop it runs only when the function returns.
//
// Silent when every such path cancels, returns (the deferred cancels then
// run), panics, exits, sends or closes a channel (the loss handed on),
// calls a function value or a function of the package that may stop the
// work (stopsOnFailure); when the cancel escapes (stored, handed to other
// code: someone else may call it); when the work is not started on the
// term's context; and when the maintenance function stops the work itself.

// checkLostCancels is the entry point, run with the effects result.
func (c *checker) checkLostCancels(eff *effects.Result, files []*ast.File) {
	maint := c.maintainers()
	if len(maint) == 0 || !c.mayLoseCancel(files, maint) {
		return // no SSA built for a package that cannot have the shape
	}
	funcs := eff.SSAFuncs()
	// the call expressions of the maintainers, by their Lparen (the
	// position an SSA call carries), where the reports go
	at := map[token.Pos]*ast.CallExpr{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := c.callee(call); fn != nil {
					if _, ok := maint[fn.Origin()]; ok {
						at[call.Lparen] = call
					}
				}
			}
			return true
		})
	}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok || call.Call.IsInvoke() {
					continue
				}
				callee := call.Call.StaticCallee()
				if callee == nil {
					continue
				}
				obj, _ := callee.Object().(*types.Func)
				if obj == nil {
					continue
				}
				if m, ok := maint[obj.Origin()]; ok && at[call.Pos()] != nil {
					c.lostCancelAt(call, at[call.Pos()], m)
				}
			}
		}
	}
}

// maintainer is a function of the package whose loop renews a lease and
// returns when the renewal fails.
type maintainer struct {
	renew *types.Func // the renewal it calls
}

// maintainers: the package's functions holding a renewal inside a loop,
// with a return reachable from the renewal without looping again, that
// stop no work themselves.
func (c *checker) maintainers() map[*types.Func]maintainer {
	out := map[*types.Func]maintainer{}
	for fn, fd := range c.decls {
		if fd.Body == nil {
			continue
		}
		var renew *types.Func
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // a goroutine's loop does not block the caller
			case *ast.ForStmt, *ast.RangeStmt:
				ast.Inspect(n, func(m ast.Node) bool {
					if _, ok := m.(*ast.FuncLit); ok {
						return false
					}
					if call, ok := m.(*ast.CallExpr); ok && renew == nil {
						if f := c.callee(call); f != nil && f.Origin() != fn && c.isRenew(f) {
							renew = f
						}
					}
					return renew == nil
				})
				return false
			}
			return renew == nil
		})
		if renew == nil || c.stopsOnFailure(fd, 0) || clearsFlag(fd) || !returnsInLoop(fd) {
			continue
		}
		out[fn] = maintainer{renew: renew}
	}
	return out
}

// clearsFlag: the body stores false in a field or package variable (a
// leadership flag the work may read), directly or through an atomic
// Store: the maintenance then tells the work itself.
func clearsFlag(fd *ast.FuncDecl) bool {
	found := false
	isFalse := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && id.Name == "false"
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if _, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && i < len(n.Rhs) && isFalse(n.Rhs[i]) {
					found = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Store" && len(n.Args) == 1 && isFalse(n.Args[0]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// returnsInLoop: a return statement inside a loop of the body (not of a
// function literal): the maintenance loop can end on a failure.
func returnsInLoop(fd *ast.FuncDecl) bool {
	found := false
	var walk func(n ast.Node, inLoop bool)
	walk = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				found = found || inLoop
			case *ast.ForStmt:
				if m != n {
					walk(m.Body, true)
					return false
				}
			case *ast.RangeStmt:
				if m != n {
					walk(m.Body, true)
					return false
				}
			}
			return !found
		})
	}
	walk(fd.Body, false)
	return found
}

// mayLoseCancel: some function of files calls a maintainer and makes a
// cancellable context (the syntax asked before the SSA form is built).
func (c *checker) mayLoseCancel(files []*ast.File, maint map[*types.Func]maintainer) bool {
	found := false
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			calls, makes := false, false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if fn := c.callee(call); fn != nil {
						if _, ok := maint[fn.Origin()]; ok {
							calls = true
						}
						if fn.Pkg() != nil && fn.Pkg().Path() == "context" {
							switch fn.Name() {
							case "WithCancel", "WithCancelCause", "WithTimeout", "WithDeadline":
								makes = true
							}
						}
					}
				}
				return true
			})
			found = found || calls && makes
		}
	}
	return found
}

// term is a cancellable context made in the leaser's function.
type term struct {
	ctx, cancel []ssa.Value // the values (and the cells holding them)
	make        *ssa.Call
}

func (c *checker) lostCancelAt(mc *ssa.Call, node *ast.CallExpr, m maintainer) {
	fn := mc.Parent()
	acq := acquireBefore(fn, mc, m.renew)
	if acq == nil {
		return
	}
	terms := termsOf(fn)
	for _, t := range terms {
		if !t.make.Block().Dominates(mc.Block()) {
			continue
		}
		work := workOn(fn, mc, t)
		if work == nil {
			continue
		}
		stoppers := map[ssa.Value]bool{}
		escaped := false
		for _, a := range ancestors(t, terms) {
			if cancelEscapes(a) {
				escaped = true
			}
			for _, v := range a.cancel {
				stoppers[v] = true
			}
		}
		if escaped {
			continue
		}
		end := c.uncancelledPath(mc, stoppers)
		if end == nil {
			continue
		}
		related := []analysis.RelatedInformation{
			rule.Related(posNode(work.Pos()), "the leader's work, started on the term's context"),
			rule.Related(posNode(t.make.Pos()), "the term's context, whose cancel this path never calls"),
		}
		if end.Pos().IsValid() {
			related = append(related, rule.Related(posNode(end.Pos()), "here the function goes on (waits, or goes round to acquire again) with the work still running"))
		}
		name := mc.Call.StaticCallee().Name()
		c.p.Reportf(node, related,
			"%s returns when renewing the lease fails, but on a path from its return the function goes on without cancelling the context the leader's work runs on (a deferred cancel runs only when the function returns): the work keeps running after the lease is lost while another replica acquires it and runs the work too; call the term's cancel as soon as %s returns",
			name, name)
		return
	}
}

// acquireBefore: a call dominating mc that acquires the lock the
// maintainer renews: a Lock/TryLock/Acquire/TryAcquire/Obtain method of
// the renewal's receiver type (also its Context form), or, for a renewal of another type (the
// knowledge base's, a helper), such a method of any lock type.
func acquireBefore(fn *ssa.Function, mc *ssa.Call, renew *types.Func) *ssa.Call {
	want := recvType(renew)
	for _, b := range fn.Blocks {
		if !b.Dominates(mc.Block()) {
			continue
		}
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok {
				continue
			}
			f := calleeFunc(&call.Call)
			if f == nil {
				continue
			}
			switch strings.TrimSuffix(f.Name(), "Context") {
			case "Lock", "TryLock", "Acquire", "TryAcquire", "Obtain":
			default:
				continue
			}
			got := recvType(f)
			if got == nil || f.Pkg() == nil || processLocal(f.Pkg().Path()) {
				continue
			}
			if want == nil || !hasMethod(want, "Acquire", "Lock", "TryLock", "TryAcquire", "Obtain") || types.Identical(deref(got), deref(want)) {
				return call
			}
		}
	}
	return nil
}

func hasMethod(t types.Type, names ...string) bool {
	for _, n := range names {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, n); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// termsOf: the cancellable contexts fn makes, each with the cells its
// context and cancel are kept in (a variable a closure captures).
func termsOf(fn *ssa.Function) []*term {
	var out []*term
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok || !makesCancel(&call.Call) {
				continue
			}
			t := &term{make: call}
			for _, x := range refs(call) {
				ex, ok := x.(*ssa.Extract)
				if !ok {
					continue
				}
				vals := withCells(ex)
				if ex.Index == 0 {
					t.ctx = append(t.ctx, vals...)
				} else {
					t.cancel = append(t.cancel, vals...)
				}
			}
			out = append(out, t)
		}
	}
	return out
}

// withCells: v and the local cells it is stored in, with their loads.
func withCells(v ssa.Value) []ssa.Value {
	out := []ssa.Value{v}
	for _, in := range refs(v) {
		st, ok := in.(*ssa.Store)
		if !ok || st.Val != v {
			continue
		}
		if a, ok := st.Addr.(*ssa.Alloc); ok {
			out = append(out, a)
			for _, r := range refs(a) {
				if ld, ok := r.(*ssa.UnOp); ok && ld.Op == token.MUL {
					out = append(out, ld)
				}
			}
		}
	}
	return out
}

// ancestors: t and the terms of fn its context is derived from.
func ancestors(t *term, terms []*term) []*term {
	out := []*term{t}
	for cur := t; len(out) <= len(terms); {
		var parent *term
		if len(cur.make.Call.Args) > 0 {
			for _, p := range terms {
				if p != cur && holds(p.ctx, cur.make.Call.Args[0]) {
					parent = p
				}
			}
		}
		if parent == nil {
			break
		}
		out = append(out, parent)
		cur = parent
	}
	return out
}

func holds(vals []ssa.Value, v ssa.Value) bool {
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}

// workOn: a go statement dominating mc whose call is handed the term's
// context (an argument, or a closure capturing it), or a call of a
// function value handed it alone (a callback).
func workOn(fn *ssa.Function, mc *ssa.Call, t *term) ssa.Instruction {
	for _, b := range fn.Blocks {
		if !b.Dominates(mc.Block()) {
			continue
		}
		for _, in := range b.Instrs {
			if b == mc.Block() && in == ssa.Instruction(mc) {
				break
			}
			switch in := in.(type) {
			case *ssa.Go:
				if handed(&in.Call, t) {
					return in
				}
				if mk, ok := in.Call.Value.(*ssa.MakeClosure); ok {
					for _, bd := range mk.Bindings {
						if holds(t.ctx, bd) {
							return in
						}
					}
				}
			case *ssa.Call:
				// a callback of the context alone (func(ctx) or func(ctx)
				// error): a logger or tracer handed it and more is no work
				if !in.Call.IsInvoke() && in.Call.StaticCallee() == nil && len(in.Call.Args) == 1 && handed(&in.Call, t) {
					return in
				}
			}
		}
	}
	return nil
}

func handed(call *ssa.CallCommon, t *term) bool {
	for _, a := range call.Args {
		if holds(t.ctx, a) {
			return true
		}
	}
	return false
}

// cancelEscapes: the term's cancel is used other than by being called,
// deferred, kept in its own cell, or captured by a closure that is only
// run (go, defer, call): stored elsewhere or handed to other code, it may
// be called where this function cannot see.
func cancelEscapes(t *term) bool {
	for _, v := range t.cancel {
		for _, in := range refs(v) {
			switch u := in.(type) {
			case *ssa.Call:
				if u.Call.Value != v {
					return true
				}
			case *ssa.Defer:
				if u.Call.Value != v {
					return true
				}
			case *ssa.Go:
				if u.Call.Value != v {
					return true
				}
			case *ssa.Store:
				if !holds(t.cancel, u.Addr) {
					return true
				}
			case *ssa.UnOp:
				if !holds(t.cancel, u) {
					return true
				}
			case *ssa.MakeClosure:
				for _, r := range refs(u) {
					switch w := r.(type) {
					case *ssa.Go, *ssa.Defer, *ssa.Call:
						if w.(ssa.CallInstruction).Common().Value != u {
							return true
						}
					case *ssa.DebugRef:
					default:
						return true
					}
				}
			case *ssa.DebugRef:
			default:
				return true
			}
		}
	}
	return false
}
