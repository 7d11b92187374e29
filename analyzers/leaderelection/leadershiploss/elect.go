package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// localVar returns the variable e names when it is declared inside body.
func (c *checker) localVar(body *ast.BlockStmt, e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil || v.Pos() < body.Pos() || v.Pos() >= body.End() {
		return nil
	}
	return v
}

// definingCall returns the call whose first result initialises v (v, err :=
// f(...) or v := f(...)), when v is assigned exactly once in body.
func (c *checker) definingCall(body *ast.BlockStmt, v *types.Var) *ast.CallExpr {
	var def *ast.CallExpr
	n := 0
	ast.Inspect(body, func(node ast.Node) bool {
		as, ok := node.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || (c.info.Defs[id] != v && c.info.Uses[id] != v) {
				continue
			}
			n++
			if i == 0 && len(as.Rhs) == 1 {
				def, _ = ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			} else if len(as.Rhs) == len(as.Lhs) {
				def, _ = ast.Unparen(as.Rhs[i]).(*ast.CallExpr)
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return def
}

// campaign checks an etcd Campaign: the election must live on a session
// created in this function, and the leader work after the campaign must
// observe the session's end (session.Done() or session.Ctx()). Sessions that
// escape (passed to other functions, stored, returned) are someone else's
// business: no report.
func (c *checker) campaign(body *ast.BlockStmt, call *ast.CallExpr) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	elec := c.localVar(body, sel.X)
	if elec == nil {
		return
	}
	mk := c.definingCall(body, elec)
	if mk == nil || len(mk.Args) == 0 {
		return
	}
	sess := c.localVar(body, mk.Args[0])
	if sess == nil {
		return
	}
	mkSess := c.definingCall(body, sess)
	if mkSess == nil || leadership.Kind(c.p.KB, c.callee(mkSess), "session") == nil {
		return
	}
	// every use of the session must be known and none may observe its end
	observed, escapes := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			for _, a := range n.Args {
				if c.localVar(body, a) == sess {
					fn := c.callee(n)
					if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != leadershipPkg(c.callee(mkSess)) {
						escapes = true
					}
				}
			}
		case *ast.SelectorExpr:
			if c.localVar(body, n.X) == sess {
				if fn, ok := c.info.Uses[n.Sel].(*types.Func); ok && leadership.Kind(c.p.KB, fn, "lost-signal") != nil {
					observed = true
				}
			}
		case *ast.AssignStmt:
			for _, r := range n.Rhs {
				if c.localVar(body, r) == sess {
					escapes = true
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if c.localVar(body, r) == sess {
					escapes = true
				}
			}
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					e = kv.Value
				}
				if c.localVar(body, e) == sess {
					escapes = true
				}
			}
		case *ast.FuncLit:
			// a goroutine may watch it under another name; references
			// inside literals are still seen by this walk
		}
		return true
	})
	if observed || escapes {
		return
	}
	stmt := enclosingStmt(body, call)
	if stmt == nil {
		return
	}
	var work ast.Node
	inspect(body, func(n ast.Node, _ int) {
		if work != nil || n.Pos() < stmt.End() {
			return
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			work = n
		case *ast.CallExpr:
			if c.isWork(n, false) || c.takesContext(n, leadershipPkg(c.callee(mkSess))) {
				work = n
			}
		case *ast.ForStmt:
			if n.Cond == nil {
				work = n
			}
		case *ast.RangeStmt:
			if isChan(c.info.TypeOf(n.X)) {
				work = n
			}
		}
	})
	if work == nil {
		return
	}
	c.p.Reportf(work, []analysis.RelatedInformation{
		rule.Related(call, "leadership won here, held only while the session's lease is kept alive"),
		rule.Related(mkSess, "the session whose Done() channel is never observed"),
	},
		"leader work after etcd Campaign never observes the session's end (%s.Done() or %s.Ctx()): when the lease expires (partition, long GC pause) another replica wins the election while this one keeps working, so on N replicas two leaders act at once; run the work on a context cancelled when %s.Done() closes, or use the elector package",
		sess.Name(), sess.Name(), sess.Name())
}

// takesContext reports whether call passes a context to something other
// than the election's own package or a logger: leader work.
func (c *checker) takesContext(call *ast.CallExpr, electionPkg string) bool {
	fn := c.callee(call)
	if fn != nil && fn.Pkg() != nil {
		path := fn.Pkg().Path()
		if path == electionPkg || path == "context" || logging(path) || isLoggerMethod(fn) || projectLogger(fn) {
			return false
		}
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
			// methods of the election's client (clientv3) are bookkeeping
			if n := leadership.NamedOf(sig.Recv().Type()); n != nil && n.Obj().Pkg() != nil &&
				strings.HasPrefix(electionPkg, n.Obj().Pkg().Path()) {
				return false
			}
		}
	}
	for _, a := range call.Args {
		if isContext(c.info.TypeOf(a)) {
			return true
		}
	}
	return false
}

func leadershipPkg(fn *types.Func) string {
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	return fn.Pkg().Path()
}

func isChan(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

// enclosingStmt returns the statement of body's block tree that contains n.
func enclosingStmt(body *ast.BlockStmt, n ast.Node) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(body, func(m ast.Node) bool {
		if m == nil || found != nil {
			return false
		}
		if m.Pos() > n.Pos() || m.End() < n.End() {
			return false
		}
		if s, ok := m.(ast.Stmt); ok {
			if _, isBlock := s.(*ast.BlockStmt); !isBlock {
				if m.Pos() <= n.Pos() && n.End() <= m.End() {
					// keep descending to the innermost simple statement
					switch s.(type) {
					case *ast.ExprStmt, *ast.AssignStmt, *ast.IfStmt, *ast.DeclStmt:
						found = s
						return false
					}
				}
			}
		}
		return true
	})
	return found
}

// checkOnce reports a leadership check made once, outside any loop, that
// guards a long-running loop which never checks again.
func (c *checker) checkOnce(body *ast.BlockStmt, ifs *ast.IfStmt) {
	var check *ast.CallExpr
	ast.Inspect(ifs.Cond, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && check == nil {
			if fn := c.callee(call); fn != nil && leadership.Kind(c.p.KB, fn, "check") != nil {
				check = call
			}
		}
		return check == nil
	})
	if check == nil {
		return
	}
	// the guarded region: the if body, or (when the body leaves) what
	// follows the if
	var region []ast.Node
	region = append(region, ifs.Body)
	if leaves(ifs.Body) {
		inspect(body, func(n ast.Node, _ int) {
			if s, ok := n.(ast.Stmt); ok && s.Pos() >= ifs.End() {
				region = append(region, s)
			}
		})
	}
	for _, r := range region {
		var loop ast.Node
		var loopBody *ast.BlockStmt
		inspect(r, func(n ast.Node, _ int) {
			if loop != nil {
				return
			}
			switch n := n.(type) {
			case *ast.ForStmt:
				if n.Cond == nil {
					loop, loopBody = n, n.Body
				}
			case *ast.RangeStmt:
				if isChan(c.info.TypeOf(n.X)) {
					loop, loopBody = n, n.Body
				}
			case *ast.CallExpr:
				// a scheduler loop of the knowledge base (wait.Forever(f, d))
				// with its function written inline and no context or stop
				// channel that might be the leader's
				fn := c.callee(n)
				if fn == nil {
					return
				}
				a := c.p.KB.Match(schedulers, fn)
				if a == nil || a.Kind != "loop" {
					return
				}
				i, ok := a.Arg("fn")
				if !ok || i >= len(n.Args) {
					return
				}
				lit, ok := ast.Unparen(n.Args[i]).(*ast.FuncLit)
				if !ok {
					return
				}
				for _, arg := range n.Args {
					if t := c.info.TypeOf(arg); isContext(t) || isStopChan(t) {
						return
					}
				}
				loop, loopBody = n, lit.Body
			}
		})
		if loop == nil {
			continue
		}
		rechecks := false
		ast.Inspect(loopBody, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := c.callee(call); fn != nil && leadership.Kind(c.p.KB, fn, "check") != nil {
					rechecks = true
				}
			}
			return !rechecks
		})
		if rechecks || c.loopObservesContext(loopBody) {
			return
		}
		c.p.Reportf(check, []analysis.RelatedInformation{rule.Related(loop, "the loop runs on without checking leadership again")},
			"%s is checked once, before a long-running loop that never checks it again: after this replica loses the lease the loop keeps running beside the new leader, so on N replicas two act at once; check leadership inside the loop, or run the loop in the leader callback on its context (or use the elector package)",
			calleeName(check))
		return
	}
}

// loopObservesContext reports whether a loop selects on or checks a
// context's Done/Err: it may stop with a leader context we cannot trace.
func (c *checker) loopObservesContext(body *ast.BlockStmt) bool {
	seen := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Done" || sel.Sel.Name == "Err") && isContext(c.info.TypeOf(sel.X)) {
				seen = true
			}
		}
		return !seen
	})
	return seen
}

// leaves reports whether a block always leaves the function or loop.
func leaves(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.CONTINUE || s.Tok == token.BREAK || s.Tok == token.GOTO
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}
