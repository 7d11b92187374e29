package leadershiploss

// Helpers that renew a lock or lease for their callers: the Renews fact,
// and whether such a helper already stops the work itself when the renewal
// fails (then a caller that drops its result ignores nothing).

import (
	"go/ast"
	"go/types"
)

// Renews is the fact exported on a helper that renews a lock or lease and
// reports the failure to its caller (it returns an error and stops nothing
// itself): a caller that only logs that error keeps working without the
// lock.
type Renews struct {
	Via string // the renewal API it calls
}

// AFact marks Renews as a fact.
func (*Renews) AFact() {}

func (r *Renews) String() string { return "renews via " + r.Via }

// findRenewers marks the package's functions that wrap a renewal.
func (c *checker) findRenewers() {
	errType := types.Universe.Lookup("error").Type()
	for range 3 {
		changed := false
		for fn, fd := range c.decls {
			if c.renews[fn] || fd.Body == nil {
				continue
			}
			sig := fn.Type().(*types.Signature)
			returnsErr := false
			for i := 0; i < sig.Results().Len(); i++ {
				if types.Identical(sig.Results().At(i).Type(), errType) {
					returnsErr = true
				}
			}
			if !returnsErr {
				continue
			}
			var via *types.Func
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if callee := c.callee(call); callee != nil && callee.Origin() != fn && c.isRenew(callee) {
						via = callee
					}
				}
				return true
			})
			if via != nil && !c.stopsOnFailure(fd, 0) {
				c.renews[fn] = true
				c.renewVia[fn] = apiName(via)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn := range c.renews {
		if fn.Pkg() == c.p.Pkg {
			c.p.ExportObjectFact(fn, &Renews{Via: c.renewVia[fn]})
		}
	}
}

// allBlank reports whether every left-hand side is the blank identifier.
func allBlank(lhs []ast.Expr) bool {
	for _, l := range lhs {
		if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return len(lhs) > 0
}

// stopsOnFailure reports whether body may stop the work a renewal guards:
// it closes a channel, panics, exits, calls a function value (a cancel
// handed in or kept in a field), or calls a function of this package that
// does one of these short of calling a parameter (a retry helper's
// operation is no cancel), up to three calls deep. A deferred cancel of a
// context the body derived itself ends only the body's own call.
func (c *checker) stopsOnFailure(fd *ast.FuncDecl, depth int) bool {
	body := fd.Body
	own := map[types.Object]bool{} // cancels of contexts derived here
	deferred := map[*ast.CallExpr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 && len(n.Lhs) == 2 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					if f := c.callee(call); f != nil && f.Pkg() != nil && f.Pkg().Path() == "context" {
						if id, ok := n.Lhs[1].(*ast.Ident); ok {
							if obj := c.info.ObjectOf(id); obj != nil {
								own[obj] = true
							}
						}
					}
				}
			}
		case *ast.DeferStmt:
			deferred[n.Call] = true
		}
		return true
	})
	params := map[types.Object]bool{}
	if depth > 0 && fd.Type.Params != nil {
		for _, f := range fd.Type.Params.List {
			for _, name := range f.Names {
				params[c.info.Defs[name]] = true
			}
		}
	}
	stops := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || stops {
			return !stops
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			if b, ok := c.info.Uses[id].(*types.Builtin); ok && (b.Name() == "close" || b.Name() == "panic") {
				stops = true
				return false
			}
		}
		callee := c.callee(call)
		if callee == nil {
			if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
				return true // a conversion
			}
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				obj := c.info.Uses[id]
				if own[obj] && deferred[call] || params[obj] {
					return true
				}
			}
			stops = true // a function value: may cancel the work
			return false
		}
		if callee.Pkg() != nil && callee.Pkg().Path() == "os" && callee.Name() == "Exit" {
			stops = true
			return false
		}
		if d := c.decls[callee.Origin()]; d != nil && d.Body != nil && d != fd && depth < 3 && c.stopsOnFailure(d, depth+1) {
			stops = true
			return false
		}
		return true
	})
	return stops
}
