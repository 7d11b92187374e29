package leadershiploss

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Renewers of the project's own making: a goroutine that renews, on a
// ticker or a sleep loop, a row this replica holds (a lease keyed by its
// identity, the visibility timeout of a message it claimed; effects
// package, Renewal) while the work that needs the hold runs beside it.
// When a renewal fails or finds the row gone and nothing it does then
// reaches the work (no cancel, no close or send, no flag, no return that
// cancels a context), the hold expires and another replica takes the row
// while this one works on: the work runs twice at once. Renewals of the
// known lock libraries (isRenew) have their own check (renewalIf).

// checkRenewLoops finds the goroutines of files that renew a held row in a
// paced loop and reports the renewals whose failure reaches nothing.
func (c *checker) checkRenewLoops(files []*ast.File) {
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	if eff == nil {
		return
	}
	for _, f := range files {
		var encl []ast.Node // the enclosing function declarations and literals
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				encl = encl[:len(encl)-1]
				return true
			}
			encl = append(encl, n)
			g, ok := n.(*ast.GoStmt)
			if !ok {
				return true
			}
			var body *ast.BlockStmt
			switch fun := ast.Unparen(g.Call.Fun).(type) {
			case *ast.FuncLit:
				body = fun.Body
			default:
				// go l.keepAlive(ctx): a function of this package
				if fn := c.callee(g.Call); fn != nil {
					if d := c.decls[fn.Origin()]; d != nil {
						body = d.Body
					}
				}
			}
			if body != nil {
				c.renewLoops(eff, g, body, encl)
			}
			return true
		})
	}
}

// renewLoops checks the paced loops of one goroutine's body.
func (c *checker) renewLoops(eff *effects.Result, g *ast.GoStmt, body *ast.BlockStmt, encl []ast.Node) {
	walkNoLits(body, func(n ast.Node) {
		var loopBody *ast.BlockStmt
		paced := false
		switch l := n.(type) {
		case *ast.ForStmt:
			loopBody = l.Body
		case *ast.RangeStmt:
			loopBody = l.Body
			paced = c.timerChannel(l.X) // for range ticker.C
		default:
			return
		}
		paced = paced || c.paced(loopBody)
		if !paced {
			return
		}
		walkNoLits(loopBody, func(m ast.Node) {
			call, ok := m.(*ast.CallExpr)
			if !ok {
				return
			}
			fn := c.callee(call)
			if fn == nil || c.isRenew(fn) || coordinatorPackage(fn) {
				return // no static callee; a known lock's renewal (renewalIf); a known elector
			}
			if ren := eff.Renewal(call); ren != nil {
				what := "a row"
				if ren.Resource != "" {
					what = "a row of " + ren.Resource
				}
				subject := fmt.Sprintf("%s keyed by %s (its expiry, statement at %s)", what, ren.Key, ren.Where)
				c.renewalOutcome(eff, call, fn, subject, nil, g, encl)
				return
			}
			if subject, acq := c.redisRenewal(call, encl); acq != nil {
				c.renewalOutcome(eff, call, fn, subject, acq, g, encl)
			}
		})
	})
}

// walkNoLits visits the nodes under root, not entering function literals.
func walkNoLits(root ast.Node, visit func(ast.Node)) {
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok && n != root {
			return false
		}
		visit(n)
		return true
	})
}

// paced: the loop body waits for time between rounds (time.Sleep, a
// receive from time.After, a ticker's or timer's channel).
func (c *checker) paced(body *ast.BlockStmt) bool {
	found := false
	walkNoLits(body, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.CallExpr:
			if fn := c.callee(n); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "Sleep" {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && c.timerChannel(n.X) {
				found = true
			}
		}
	})
	return found
}

// timerChannel: time.After(d), time.Tick(d), or the C of a *time.Ticker or
// *time.Timer.
func (c *checker) timerChannel(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := c.callee(e)
		return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "After" || fn.Name() == "Tick")
	case *ast.SelectorExpr:
		if e.Sel.Name != "C" {
			return false
		}
		t := c.info.TypeOf(e.X)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && (n.Obj().Name() == "Ticker" || n.Obj().Name() == "Timer")
	}
	return false
}

// coordinatorPackage: the renewal of a known elector or lease library,
// whose loss handling the library does and the other checks of this rule
// read (client-go leader election, this project's elector, etcd
// concurrency sessions).
func coordinatorPackage(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	for _, prefix := range []string{"k8s.io/client-go/", "go.etcd.io/etcd/client/v3/concurrency", "github.com/gatesift/gatesift-vet/elector"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// renewalOutcome reports the renewal when its failure reaches nothing
// (failure.go decides).
func (c *checker) renewalOutcome(eff *effects.Result, call *ast.CallExpr, fn *types.Func, subject string, acquire ast.Node, g *ast.GoStmt, encl []ast.Node) {
	if c.checked[call] {
		return // a renewer started by several go statements: one report
	}
	c.checked[call] = true
	out := c.failureReach(eff, call)
	if out.reaches {
		return
	}
	related := []analysis.RelatedInformation{}
	if out.at != nil {
		related = append(related, rule.Related(out.at, "%s", out.how))
	}
	related = append(related, rule.Related(g, "the renewer runs in this goroutine, beside the work"))
	if work := c.workBeside(g, encl); work != nil {
		related = append(related, rule.Related(work, "the work that goes on without the hold"))
	}
	if acquire == nil {
		acquire = c.acquireBefore(eff, g, encl)
	}
	if acquire != nil {
		related = append(related, rule.Related(acquire, "the claim or acquire the renewal keeps alive"))
	}
	c.p.Reportf(call, related,
		"%s renews %s, and %s: when the renewal fails or finds the hold taken, the hold expires, another replica takes it and does the same work while this one goes on, so the work runs twice at once; stop the work when the renewal fails (cancel its context, close a channel it selects on), or use the elector package",
		apiName(fn), subject, out.why)
}

// redisRenewal: call moves the expiry of a Redis key this package acquires
// as a lock (EXPIRE or PEXPIRE of it, or a script on it that expires: a
// compare-and-refresh), in a function that sees the acquire (the same
// function, or a method of the same type, or a constant key). It returns
// the message's subject and the acquire, or a nil acquire.
func (c *checker) redisRenewal(call *ast.CallExpr, encl []ast.Node) (string, ast.Node) {
	op := lockfacts.Classify(c.info, c.p.KB, call)
	if op != nil && op.Kind == lockfacts.Script && op.Key == nil {
		// Eval(ctx, script, []string{l.key}, ...): the one key of the list
		if i, ok := op.API.Arg("keys"); ok && i < len(call.Args) {
			if lit, ok := ast.Unparen(call.Args[i]).(*ast.CompositeLit); ok && len(lit.Elts) == 1 {
				keyed := *op
				keyed.Key = lit.Elts[0]
				keyed.KeyConst, keyed.IsKeyConst = lockfacts.StringConst(c.info, lit.Elts[0])
				op = &keyed
			}
		}
	}
	if op == nil || op.Key == nil {
		return "", nil
	}
	switch op.Kind {
	case lockfacts.Expire:
	case lockfacts.Script:
		i, ok := op.API.Arg("script")
		if !ok || i >= len(call.Args) {
			return "", nil // a script whose text is out of sight
		}
		src, ok := lockfacts.StringConst(c.info, call.Args[i])
		if !ok || !strings.Contains(strings.ToLower(src), "expire") {
			return "", nil
		}
	default:
		return "", nil
	}
	var fd *ast.FuncDecl
	for _, n := range encl {
		if d, ok := n.(*ast.FuncDecl); ok {
			fd = d
		}
	}
	if fd == nil {
		return "", nil
	}
	if c.lockPkg == nil {
		c.lockPkg = lockfacts.Scan(c.p.Pkg, c.info, c.p.KB, c.p.Files())
	}
	var f *lockfacts.Func
	for _, x := range c.lockPkg.Funcs {
		if x.Decl == fd {
			f = x
		}
	}
	if f == nil {
		return "", nil
	}
	acq := c.lockPkg.AcquireOf(f, op)
	if acq == nil {
		return "", nil
	}
	p := c.p.Fset.Position(acq.Call.Pos())
	return fmt.Sprintf("the Redis lock %s, taken by %s at %s:%d", op.KeyLabel(), acq.What(), filepath.Base(p.Filename), p.Line), acq.Call
}

// workBeside returns the first statement after the go statement, in its
// block, that is not only logging: the work the renewer runs beside.
func (c *checker) workBeside(g *ast.GoStmt, encl []ast.Node) ast.Node {
	for i := len(encl) - 2; i >= 0; i-- {
		b, ok := encl[i].(*ast.BlockStmt)
		if !ok {
			continue
		}
		after := false
		for _, s := range b.List {
			if s == g || s.Pos() <= g.Pos() && g.End() <= s.End() {
				after = true
				continue
			}
			if !after {
				continue
			}
			switch s := s.(type) {
			case *ast.ExprStmt:
				if c.onlyLogsList([]ast.Stmt{s}) {
					continue
				}
				return s
			case *ast.AssignStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.GoStmt, *ast.SendStmt:
				return s
			}
		}
		return nil
	}
	return nil
}

// acquireBefore returns the claim or lock taken before the go statement in
// the function declaration around it (effects coordination), if any.
func (c *checker) acquireBefore(eff *effects.Result, g *ast.GoStmt, encl []ast.Node) ast.Node {
	for _, n := range encl {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		var found ast.Node
		for _, ev := range eff.Scan(fd.Body).Events {
			if ev.Coordination != "" && ev.At() != nil && ev.At().Pos() < g.Pos() {
				found = ev.At()
			}
		}
		return found
	}
	return nil
}
