package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

// How a controller-runtime manager's loss of leadership reaches the process.
// The manager's Start returns an error when the lease is lost; it exits only
// if its caller makes it. Functions that return that error carry the
// ManagerErr fact; a goroutine that only logs (or drops) it makes the
// package's LossSurvives fact. Everything else (an exit, a return to an
// unknown caller, a cancel) is left alone: no claim, no report.

// managerStart says whether call starts a manager (or calls a function that
// returns a manager's error), and whose.
func (c *checker) managerStart(g *gates, fd *ast.FuncDecl, call *ast.CallExpr) (holder, at string, ok bool) {
	fn := c.callee(call)
	if fn == nil {
		return "", "", false
	}
	if m := c.managerErrOf(g, fn); m != nil {
		return m.Holder, m.At, true
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return "", "", false
	}
	recv := sig.Recv().Type()
	if fn.Name() == "Start" {
		obj, _, _ := types.LookupFieldOrMethod(recv, true, fn.Pkg(), "Elected")
		if el, isFn := obj.(*types.Func); isFn && leadership.Kind(c.p.KB, el, "elected-signal") != nil {
			return c.p.Pkg.Path(), c.where(call.Pos()), true
		}
	}
	// a method of an interface, called on a local variable whose assigned
	// values have concrete types: the Start of one of them
	if _, isIface := recv.Underlying().(*types.Interface); !isIface || fd == nil {
		return "", "", false
	}
	sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !isSel {
		return "", "", false
	}
	v := c.localVar(fd.Body, sel.X)
	if v == nil {
		return "", "", false
	}
	for _, t := range c.assignedTypes(fd.Body, v) {
		if _, isIface := t.Underlying().(*types.Interface); isIface {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), fn.Name())
		if m, isFn := obj.(*types.Func); isFn {
			if mf := c.managerErrOf(g, m); mf != nil {
				return mf.Holder, mf.At, true
			}
		}
	}
	return "", "", false
}

func (c *checker) managerErrOf(g *gates, fn *types.Func) *ManagerErr {
	fn = fn.Origin()
	if m, ok := g.mgrErr[fn]; ok {
		return m
	}
	if fn.Pkg() == c.p.Pkg {
		return nil
	}
	m := new(ManagerErr)
	if c.p.ImportObjectFact(fn, m) {
		return m
	}
	return nil
}

// assignedTypes returns the static types of the values assigned to v in
// body (p, err = newProvider(...) gives newProvider's first result type).
func (c *checker) assignedTypes(body *ast.BlockStmt, v *types.Var) []types.Type {
	var out []types.Type
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || c.info.ObjectOf(id) != v {
				continue
			}
			switch {
			case len(as.Rhs) == len(as.Lhs):
				out = append(out, c.info.TypeOf(as.Rhs[i]))
			case len(as.Rhs) == 1:
				if tup, ok := c.info.TypeOf(as.Rhs[0]).(*types.Tuple); ok && i < tup.Len() {
					out = append(out, tup.At(i).Type())
				}
			}
		}
		return true
	})
	return out
}

// findManagerErr marks the functions of this package that return a
// manager's error: `return mgr.Start(ctx)`, `err := mgr.Start(ctx) ...
// return err`, or the error sent on a channel by a goroutine and returned
// once received.
func (c *checker) findManagerErr(g *gates, files []*ast.File) {
	if !c.seesManager() {
		return
	}
	for range 3 {
		changed := false
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, _ := c.info.Defs[fd.Name].(*types.Func)
				if fn == nil || g.mgrErr[fn] != nil {
					continue
				}
				if m := c.returnsManagerErr(g, fd); m != nil {
					g.mgrErr[fn] = m
					changed = true
				}
			}
		}
		if !changed {
			return
		}
	}
}

func (c *checker) returnsManagerErr(g *gates, fd *ast.FuncDecl) *ManagerErr {
	// values carrying the error: variables assigned a start call, channels
	// sent one, variables received from such a channel
	carriers := map[*types.Var]*ManagerErr{}
	var direct *ManagerErr
	var lits []*ast.FuncLit
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok {
			lits = append(lits, lit)
		}
		return true
	})
	start := func(e ast.Expr) *ManagerErr {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil
		}
		if h, at, ok := c.managerStart(g, fd, call); ok {
			return &ManagerErr{Holder: h, At: at}
		}
		return nil
	}
	carried := func(e ast.Expr) *ManagerErr {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			e = ast.Unparen(u.X)
		}
		if id, ok := e.(*ast.Ident); ok {
			if v, ok := c.info.Uses[id].(*types.Var); ok {
				return carriers[v]
			}
		}
		return start(e)
	}
	for range 2 {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Rhs) != 1 {
					return true
				}
				if m := carried(n.Rhs[0]); m != nil {
					if id, ok := n.Lhs[0].(*ast.Ident); ok {
						if v, ok := c.info.ObjectOf(id).(*types.Var); ok && v != nil {
							carriers[v] = m
						}
					}
				}
			case *ast.SendStmt:
				if m := start(n.Value); m != nil {
					if id, ok := ast.Unparen(n.Chan).(*ast.Ident); ok {
						if v, ok := c.info.Uses[id].(*types.Var); ok {
							carriers[v] = m
						}
					}
				}
			case *ast.ReturnStmt:
				if direct != nil || !inOwnBody(lits, n) {
					return true
				}
				for _, r := range n.Results {
					if m := carried(r); m != nil {
						direct = m
					}
					// return fmt.Errorf("...: %w", err)
					if call, ok := ast.Unparen(r).(*ast.CallExpr); ok {
						if fn := c.callee(call); fn != nil && fn.Pkg() != nil && (fn.Pkg().Path() == "fmt" || fn.Pkg().Path() == "errors") {
							for _, a := range call.Args {
								if m := carried(a); m != nil {
									direct = m
								}
							}
						}
					}
				}
			}
			return true
		})
	}
	return direct
}

// inOwnBody: n is not inside a function literal of fd.
func inOwnBody(lits []*ast.FuncLit, n ast.Node) bool {
	for _, lit := range lits {
		if lit.Pos() <= n.Pos() && n.End() <= lit.End() {
			return false
		}
	}
	return true
}

// findSurvives records the elections whose loss this package swallows: a
// goroutine that runs a manager's Start (or a function returning its error)
// and at most logs the error, then ends.
func (c *checker) findSurvives(g *gates, files []*ast.File) map[string]string {
	out := map[string]string{}
	if !c.seesManager() {
		return out
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				gs, ok := n.(*ast.GoStmt)
				if !ok {
					return true
				}
				if h, _, ok := c.managerStart(g, fd, gs.Call); ok {
					out[h] = c.where(gs.Pos()) // go mgr.Start(ctx): the error is dropped
					return true
				}
				lit, ok := ast.Unparen(gs.Call.Fun).(*ast.FuncLit)
				if !ok {
					return true
				}
				if h, at, ok := c.swallows(g, fd, lit.Body.List); ok {
					out[h] = at
				}
				return true
			})
		}
	}
	return out
}

// swallows matches a goroutine body that is only `start(...)`, `_ =
// start(...)`, or `if err := start(...); err != nil { log }` (also with the
// assignment before the if).
func (c *checker) swallows(g *gates, fd *ast.FuncDecl, list []ast.Stmt) (string, string, bool) {
	call := func(e ast.Expr) (string, bool) {
		ce, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return "", false
		}
		h, _, ok := c.managerStart(g, fd, ce)
		return h, ok
	}
	assigned := func(s ast.Stmt) (string, *types.Var, bool) {
		as, ok := s.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return "", nil, false
		}
		h, ok := call(as.Rhs[0])
		if !ok {
			return "", nil, false
		}
		id, _ := as.Lhs[0].(*ast.Ident)
		if id == nil {
			return "", nil, false
		}
		v, _ := c.info.ObjectOf(id).(*types.Var)
		return h, v, true
	}
	onlyLogs := func(ifs *ast.IfStmt, v *types.Var) bool {
		if ifs.Else != nil || v == nil {
			return false
		}
		be, ok := ifs.Cond.(*ast.BinaryExpr)
		if !ok || be.Op != token.NEQ {
			return false
		}
		if id, ok := ast.Unparen(be.X).(*ast.Ident); !ok || c.info.Uses[id] != v {
			return false
		}
		stops, _ := c.stopsWork(fd, &ast.FuncLit{Type: &ast.FuncType{}, Body: ifs.Body}, false)
		return !stops
	}
	switch len(list) {
	case 1:
		switch s := list[0].(type) {
		case *ast.ExprStmt:
			if h, ok := call(s.X); ok {
				return h, c.where(s.Pos()), true
			}
		case *ast.AssignStmt:
			if h, v, ok := assigned(s); ok && v == nil {
				return h, c.where(s.Pos()), true // _ = start(ctx)
			}
		case *ast.IfStmt:
			if s.Init != nil {
				if h, v, ok := assigned(s.Init); ok && onlyLogs(s, v) {
					return h, c.where(s.Pos()), true
				}
			}
		}
	case 2:
		if ifs, ok := list[1].(*ast.IfStmt); ok && ifs.Init == nil {
			if h, v, ok := assigned(list[0]); ok && onlyLogs(ifs, v) {
				return h, c.where(ifs.Pos()), true
			}
		}
	}
	return "", "", false
}

// seesManager: the package imports controller-runtime, or a dependency
// exports a ManagerErr fact; elsewhere no manager error can be in sight.
func (c *checker) seesManager() bool {
	for _, imp := range c.p.Pkg.Imports() {
		if strings.HasPrefix(imp.Path(), crPrefix) {
			return true
		}
	}
	for _, f := range c.p.AllObjectFacts() {
		if _, ok := f.Fact.(*ManagerErr); ok {
			return true
		}
	}
	return false
}

// deployedFiles are the files the rules read, without _test.go files even
// when the configuration reads tests.
func (c *checker) deployedFiles() []*ast.File {
	var out []*ast.File
	for _, f := range c.p.Files() {
		if !strings.HasSuffix(c.p.Fset.File(f.Pos()).Name(), "_test.go") {
			out = append(out, f)
		}
	}
	return out
}
