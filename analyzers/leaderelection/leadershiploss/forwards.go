package leadershiploss

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Forwards is the fact exported on a function that forwards one of its
// parameters to a leader election as the OnStartedLeading callback: it is
// called with the leader context when this replica wins. Call sites in any
// package are then checked as if the argument were written in the
// callbacks literal.
type Forwards struct {
	Start int // index of the parameter that becomes OnStartedLeading
	Stop  int // index of the parameter called when leadership is lost, or -1
	// StopsWork: the wrapper's own loss handling stops the process (exits,
	// cancels, or calls something unknown), whatever the call site passes.
	StopsWork bool
	// Via names the election API reached, for messages.
	Via string
}

// AFact marks Forwards as a fact.
func (*Forwards) AFact() {}

func (f *Forwards) String() string {
	return fmt.Sprintf("forwards param %d as OnStartedLeading (stop %d, stops work %v) to %s", f.Start, f.Stop, f.StopsWork, f.Via)
}

type paramRef struct {
	fn  *types.Func
	idx int
}

func (c *checker) importsForwarder() bool {
	for _, f := range c.p.AllObjectFacts() {
		switch f.Fact.(type) {
		case *Forwards, *Renews:
			return true
		}
	}
	return false
}

// forwards returns the Forwards of fn, from this package or a fact.
func (c *checker) forwards(fn *types.Func) *Forwards {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if f, ok := c.local[fn]; ok {
		return f
	}
	if fn.Pkg() == c.p.Pkg {
		return nil
	}
	f := new(Forwards)
	if c.p.ImportObjectFact(fn, f) {
		return f
	}
	return nil
}

func (c *checker) indexFields(files []*ast.File) {
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, _ := c.info.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			record := func(field *types.Var, val ast.Expr) {
				if idx := c.paramIndex(fd, val); idx >= 0 && field != nil && field.IsField() {
					c.fieldParam[field] = paramRef{fn, idx}
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.KeyValueExpr:
					if id, ok := n.Key.(*ast.Ident); ok {
						v, _ := c.info.Uses[id].(*types.Var)
						record(v, n.Value)
					}
				case *ast.AssignStmt:
					if len(n.Lhs) == len(n.Rhs) {
						for i, l := range n.Lhs {
							if sel, ok := l.(*ast.SelectorExpr); ok {
								v, _ := c.info.Uses[sel.Sel].(*types.Var)
								record(v, n.Rhs[i])
							}
						}
					}
				}
				return true
			})
		}
	}
}

// paramIndex returns the index of the parameter of fd that e names, or -1.
func (c *checker) paramIndex(fd *ast.FuncDecl, e ast.Expr) int {
	if fd == nil {
		return -1
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return -1
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil {
		return -1
	}
	return c.paramOf(fd, v)
}

// forwarded resolves e to a parameter of some function: directly (a
// parameter of the enclosing declaration) or through a struct field that
// stores one.
func (c *checker) forwarded(fd *ast.FuncDecl, e ast.Expr) (paramRef, bool) {
	e = ast.Unparen(e)
	if idx := c.paramIndex(fd, e); idx >= 0 {
		fn, _ := c.info.Defs[fd.Name].(*types.Func)
		if fn != nil {
			return paramRef{fn, idx}, true
		}
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if v, ok := c.info.Uses[sel.Sel].(*types.Var); ok {
			if r, ok := c.fieldParam[v]; ok {
				return r, true
			}
		}
	}
	return paramRef{}, false
}

// deriveForwards records Forwards for the functions whose parameters reach
// a site's callbacks. It reports whether anything changed.
func (c *checker) deriveForwards(sites []*site) bool {
	changed := false
	for _, s := range sites {
		start, ok := c.forwarded(s.fd, s.start)
		if !ok {
			if lit, isLit := ast.Unparen(s.start).(*ast.FuncLit); isLit {
				start, ok = c.forwardedCall(s.fd, lit, true)
			}
		}
		if !ok {
			continue
		}
		f := &Forwards{Start: start.idx, Stop: -1, Via: s.via}
		if s.stop != nil {
			if r, ok := c.forwarded(s.fd, s.stop); ok && r.fn == start.fn {
				f.Stop = r.idx
			} else if lit, isLit := ast.Unparen(s.stop).(*ast.FuncLit); isLit {
				if r, ok := c.forwardedCall(s.fd, lit, false); ok && r.fn == start.fn {
					f.Stop = r.idx
				}
			}
		}
		stops, _ := c.stopsWork(s.fd, s.stop, true)
		f.StopsWork = s.stopsAny || stops
		old := c.local[start.fn]
		if old == nil || *old != *f {
			c.local[start.fn] = f
			c.forwardsGen++
			changed = true
		}
	}
	return changed
}

// forwardedCall finds, in a callback literal, a call of a forwarded
// parameter (directly or through a field). With withCtx, the call must pass
// the literal's own context parameter (or one derived from it): a wrapper
// that hands the user's callback another context is not a forwarder.
func (c *checker) forwardedCall(fd *ast.FuncDecl, lit *ast.FuncLit, withCtx bool) (paramRef, bool) {
	var r paramRef
	found := false
	var cb *callback
	if withCtx {
		cb = newCallback(c, lit, lit.Type, lit.Body)
		if cb.leader == nil {
			return r, false
		}
	}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if ref, ok := c.forwarded(fd, call.Fun); ok {
				if !withCtx {
					r, found = ref, true
					return false
				}
				for _, a := range call.Args {
					if isContext(c.info.TypeOf(a)) && cb.classify(a).class == bound {
						r, found = ref, true
						return false
					}
				}
			}
		}
		return true
	})
	return r, found
}
