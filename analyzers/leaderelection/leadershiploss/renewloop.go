package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
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
			ren := eff.Renewal(call)
			if ren == nil {
				return
			}
			c.renewalOutcome(eff, call, fn, ren, g, encl)
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
func (c *checker) renewalOutcome(eff *effects.Result, call *ast.CallExpr, fn *types.Func, ren *effects.Renewal, g *ast.GoStmt, encl []ast.Node) {
	out := c.failureReach(eff, call)
	if out.reaches {
		return
	}
	what := "a row"
	if ren.Resource != "" {
		what = "a row of " + ren.Resource
	}
	related := []analysis.RelatedInformation{}
	if out.at != nil {
		related = append(related, rule.Related(out.at, "%s", out.how))
	}
	related = append(related, rule.Related(g, "the renewer runs in this goroutine, beside the work"))
	if work := c.workBeside(g, encl); work != nil {
		related = append(related, rule.Related(work, "the work that goes on without the hold"))
	}
	if acq := c.acquireBefore(eff, g, encl); acq != nil {
		related = append(related, rule.Related(acq, "the claim or acquire the renewal keeps alive"))
	}
	c.p.Reportf(call, related,
		"%s renews %s keyed by %s (its expiry, statement at %s), and %s: when the renewal fails or finds the row taken the hold expires, another replica takes the row and does the same work while this one goes on, so the work runs twice at once; stop the work when the renewal fails (cancel its context, close a channel it selects on), or use the elector package",
		apiName(fn), what, ren.Key, ren.Where, out.why)
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
