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

// checkLocks looks, function by function, for leadership that is taken but
// not watched: a discarded lost-lock channel or acquire result, a renewal
// whose failure is only logged, an etcd campaign whose session is never
// observed, and a leadership check made once before a long loop.
func (c *checker) checkLocks(files []*ast.File) {
	used := map[types.Object]bool{}
	for _, obj := range c.info.Uses {
		used[obj] = true
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch n := n.(type) {
			case *ast.FuncDecl:
				body = n.Body
			case *ast.FuncLit:
				body = n.Body
			}
			if body != nil {
				c.checkBody(body, used)
			}
			return true
		})
	}
}

// checkBody checks the statements of one function body, not descending into
// nested function literals (they are bodies of their own).
func (c *checker) checkBody(body *ast.BlockStmt, used map[types.Object]bool) {
	prev := map[ast.Stmt]ast.Stmt{}
	inspect(body, func(n ast.Node, _ int) {
		if b, ok := n.(*ast.BlockStmt); ok {
			for i := 1; i < len(b.List); i++ {
				prev[b.List[i]] = b.List[i-1]
			}
		}
	})
	inspect(body, func(n ast.Node, loops int) {
		switch n := n.(type) {
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(n.X).(*ast.CallExpr); ok {
				c.discarded(body, n, call, nil, used)
				c.renewal(call, nil, nil)
			}
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					c.discarded(body, n, call, n.Lhs, used)
					if allBlank(n.Lhs) {
						c.renewal(call, nil, nil) // _, _ = lc.RenewLease(ctx, nil)
					}
				}
			}
		case *ast.IfStmt:
			c.renewalIf(body, prev, n)
			if loops == 0 {
				c.checkOnce(body, n)
			}
		case *ast.CallExpr:
			if fn := c.callee(n); fn != nil && leadership.Kind(c.p.KB, fn, "campaign") != nil {
				c.campaign(body, n)
			}
		}
	})
}

// inspect walks n without entering function literals, telling the visitor
// how many loops enclose each node.
func inspect(root ast.Node, visit func(n ast.Node, loops int)) {
	var walk func(n ast.Node, loops int)
	walk = func(n ast.Node, loops int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if m == nil {
				return false
			}
			if m == n {
				visit(m, loops)
				return true
			}
			switch m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				walk(m, loops+1)
				return false
			}
			visit(m, loops)
			return true
		})
	}
	walk(root, 0)
}

// discardedResult reports whether the results of call at the positions in
// idx are thrown away: an expression statement, _, or a variable never read.
func discardedResult(lhs []ast.Expr, idx int, info *types.Info, used map[types.Object]bool) bool {
	if lhs == nil {
		return true
	}
	if idx >= len(lhs) {
		return false
	}
	id, ok := lhs[idx].(*ast.Ident)
	if !ok {
		return false
	}
	if id.Name == "_" {
		return true
	}
	obj := info.Defs[id]
	return obj != nil && !used[obj]
}

func (c *checker) discarded(body *ast.BlockStmt, stmt ast.Stmt, call *ast.CallExpr, lhs []ast.Expr, used map[types.Object]bool) {
	fn := c.callee(call)
	if fn == nil {
		return
	}
	lost := leadership.Kind(c.p.KB, fn, "lost-channel")
	if lost == nil && leadership.Kind(c.p.KB, fn, "acquire-result") == nil && !lockLikeAcquire(fn) {
		return
	}
	work := c.workAfter(body, stmt)
	if work == nil {
		return
	}
	if a := lost; a != nil {
		idx, _ := a.Arg("lost")
		if discardedResult(lhs, idx, c.info, used) {
			c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(work, "the work that keeps running after the lock is lost")},
				"the lost-leadership channel returned by %s is discarded: when the session is invalidated (TTL expiry, network partition) this replica keeps working while another acquires the lock, so on N replicas two leaders act at once; keep the channel and stop the work when it closes (select on it, or cancel a context), or use the elector package",
				apiName(fn))
		}
		return
	}
	if leadership.Kind(c.p.KB, fn, "acquire-result") == nil && !lockLikeAcquire(fn) {
		return
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Results().Len() == 0 {
		return
	}
	// the success indicator: the bool results if any, else the error
	var indicators []int
	for i := 0; i < sig.Results().Len(); i++ {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			indicators = append(indicators, i)
		}
	}
	if len(indicators) == 0 {
		for i := 0; i < sig.Results().Len(); i++ {
			if types.Identical(sig.Results().At(i).Type(), types.Universe.Lookup("error").Type()) {
				indicators = append(indicators, i)
			}
		}
	}
	if len(indicators) == 0 {
		return
	}
	for _, i := range indicators {
		if !discardedResult(lhs, i, c.info, used) {
			return
		}
	}
	// lock, _ := Obtain(...); if lock == nil { return }: checked after all
	for _, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" && c.comparedToNil(body, c.info.Defs[id]) {
			return
		}
	}
	c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(work, "runs whether or not the lock was obtained")},
		"the result of %s is discarded and the work runs anyway: when another replica holds the lock (or the store fails) this replica runs the job too, so on N replicas it runs N times; check the result and skip the work unless the lock was obtained, or use the elector package",
		apiName(fn))
}

// workAfter returns the first statement after stmt, in its function body,
// that does something: not a defer, return or empty statement.
func (c *checker) workAfter(body *ast.BlockStmt, stmt ast.Stmt) ast.Node {
	var found ast.Node
	inspect(body, func(n ast.Node, _ int) {
		if found != nil {
			return
		}
		s, ok := n.(ast.Stmt)
		if !ok || s.Pos() < stmt.End() {
			return
		}
		switch s := s.(type) {
		case *ast.ExprStmt, *ast.GoStmt, *ast.SendStmt, *ast.IncDecStmt:
			found = s
		case *ast.AssignStmt:
			for _, r := range s.Rhs {
				if _, ok := ast.Unparen(r).(*ast.CallExpr); ok {
					found = s
				}
			}
		case *ast.ForStmt, *ast.RangeStmt:
			found = s
		}
	})
	return found
}

// renewal reports a renewal whose result is discarded (an expression
// statement).
func (c *checker) renewal(call *ast.CallExpr, _ []ast.Expr, _ ast.Node) {
	fn := c.callee(call)
	if fn == nil || !c.isRenew(fn) {
		return
	}
	c.p.Reportf(call, nil,
		"the result of %s is discarded: when the renewal fails the lock expires while this replica keeps working, so on N replicas another one takes the lock and both act at once; stop the work (cancel its context) when the renewal fails, or use the elector package",
		apiName(fn))
}

// renewalIf reports `if err := renew(); err != nil { log... }` and the
// two-statement form, when the failure branch only logs.
func (c *checker) renewalIf(body *ast.BlockStmt, prev map[ast.Stmt]ast.Stmt, ifs *ast.IfStmt) {
	var call *ast.CallExpr
	acquire := false
	var results []*types.Var
	fromAssign := func(s ast.Stmt) {
		as, ok := s.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return
		}
		cl, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return
		}
		fn := c.callee(cl)
		if fn == nil {
			return
		}
		if c.isRenew(fn) {
			acquire = false
		} else if leadership.Kind(c.p.KB, fn, "acquire-result") != nil || lockLikeAcquire(fn) {
			acquire = true
		} else {
			return
		}
		call = cl
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				v, _ := c.info.Defs[id].(*types.Var)
				if v == nil {
					v, _ = c.info.Uses[id].(*types.Var)
				}
				if v != nil {
					results = append(results, v)
				}
			}
		}
	}
	if ifs.Init != nil {
		fromAssign(ifs.Init)
	} else if p := prev[ifs]; p != nil {
		fromAssign(p) // the statement just before the if in its block
	}
	if call == nil || len(results) == 0 {
		return
	}
	mentions := false
	ast.Inspect(ifs.Cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			for _, v := range results {
				if c.info.Uses[id] == v {
					mentions = true
				}
			}
		}
		return true
	})
	if !mentions || ifs.Else != nil {
		return
	}
	if acquire && !c.onlyLogs(ifs.Body) || !acquire && !c.onlyLogsContinue(ifs.Body) {
		return
	}
	fn := c.callee(call)
	if acquire {
		work := c.workAfter(body, ifs)
		if work == nil {
			return
		}
		c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(ifs.Body, "the failure is only logged"), rule.Related(work, "runs whether or not the lock was obtained")},
			"the failure of %s is only logged and the work runs anyway: when another replica holds the lock (or the store fails) this replica runs the job too, so on N replicas it runs N times; return (skip the work) when the lock was not obtained, or use the elector package",
			apiName(fn))
		return
	}
	c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(ifs.Body, "the failure is only logged; the work goes on")},
		"the failure of %s is only logged while the work continues: the lock expires and another replica acquires it, so on N replicas two act at once; stop the work (return, or cancel its context) when the renewal fails, or use the elector package",
		apiName(fn))
}

// onlyLogs reports whether every statement of a block is a call of a
// logging function that does not exit (no return, break, assignment, or
// other call).
func (c *checker) onlyLogs(b *ast.BlockStmt) bool { return c.onlyLogsList(b.List) }

// onlyLogsContinue is onlyLogs allowing a final unlabelled continue: in a
// renew loop it goes on to the next tick, and the work goes on as if
// nothing failed. (In an acquire loop it skips the work: not the same.)
func (c *checker) onlyLogsContinue(b *ast.BlockStmt) bool {
	list := b.List
	if n := len(list); n > 1 {
		if br, ok := list[n-1].(*ast.BranchStmt); ok && br.Tok == token.CONTINUE && br.Label == nil {
			list = list[:n-1]
		}
	}
	return c.onlyLogsList(list)
}

func (c *checker) onlyLogsList(list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	for _, s := range list {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return false
		}
		call, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok || !c.logCall(call) {
			return false
		}
	}
	return true
}

// logCall reports whether a call writes a log line and nothing else: a
// logging package's function or a logger's method, not of the Fatal, Panic
// and Exit families.
func (c *checker) logCall(call *ast.CallExpr) bool {
	fn := c.callee(call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	if !logging(fn.Pkg().Path()) && !isLoggerMethod(fn) && !projectLogger(fn) {
		return false
	}
	for _, p := range []string{"Fatal", "Panic", "DPanic", "Exit", "FlushAndExit"} {
		if strings.HasPrefix(fn.Name(), p) {
			return false
		}
	}
	return true
}

func isLoggerMethod(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	n := leadership.NamedOf(sig.Recv().Type())
	return n != nil && n.Obj().Pkg() != nil && logging(n.Obj().Pkg().Path())
}

func apiName(fn *types.Func) string {
	if r := recvName(fn); r != "" {
		return "(" + fn.Pkg().Name() + "." + r + ")." + fn.Name()
	}
	if fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return fn.Name()
}

func recvName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	if n := leadership.NamedOf(sig.Recv().Type()); n != nil {
		return n.Obj().Name()
	}
	return ""
}

// isRenew reports whether fn renews a lock or lease: a knowledge-base entry
// of kind renew, or a method named Heartbeat, Renew, Refresh, Extend or
// KeepAlive (and their Xxx forms) of a type that also has Lock and Unlock
// (or Acquire and Release) methods, i.e. a lock's own renewal.
func (c *checker) isRenew(fn *types.Func) bool {
	if leadership.Kind(c.p.KB, fn, "renew") != nil {
		return true
	}
	if fn = fn.Origin(); c.renews[fn] {
		return true
	}
	if fn.Pkg() != nil && fn.Pkg() != c.p.Pkg {
		var r Renews
		if c.p.ImportObjectFact(fn, &r) {
			return true
		}
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil || fn.Pkg() == nil || processLocal(fn.Pkg().Path()) {
		return false
	}
	named := false
	for _, p := range []string{"Heartbeat", "Renew", "Refresh", "Extend", "KeepAlive"} {
		if workNamePrefix(fn.Name(), p) {
			named = true
		}
	}
	if !named {
		return false
	}
	t := sig.Recv().Type()
	has := func(name string) bool {
		obj, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), name)
		m, ok := obj.(*types.Func)
		return ok && !processLocalMethod(m)
	}
	if !(has("Lock") && has("Unlock")) && !(has("Acquire") && has("Release")) {
		return false
	}
	// a renewal that stops the work itself when it fails leaves its caller
	// nothing to stop: discarding its result ignores no loss
	d := c.decls[fn]
	return d == nil || d.Body == nil || !c.stopsOnFailure(d, 0)
}

// processLocalMethod reports whether m is a method of a concrete type of a
// process-local package: Lock and Unlock promoted from an embedded
// sync.Mutex or sync.RWMutex (at any depth) guard memory, not a lock the
// replicas share. (An interface's, sync.Locker's, says nothing of what
// implements it.)
func processLocalMethod(m *types.Func) bool {
	if m.Pkg() == nil || !processLocal(m.Pkg().Path()) {
		return false
	}
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	_, iface := sig.Recv().Type().Underlying().(*types.Interface)
	return !iface
}

// lockLikeAcquire reports whether fn is a method named Lock, TryLock,
// Acquire, TryAcquire or Obtain that returns a bool: whether the lock was
// taken (gocron's Locker.Lock(key) (bool, error) and its many copies).
func lockLikeAcquire(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil || fn.Pkg() == nil || processLocal(fn.Pkg().Path()) {
		return false
	}
	switch fn.Name() {
	case "Lock", "TryLock", "Acquire", "TryAcquire", "Obtain":
	default:
		return false
	}
	for i := 0; i < sig.Results().Len(); i++ {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			return true
		}
	}
	return false
}

func workNamePrefix(name, p string) bool {
	rest, ok := strings.CutPrefix(name, p)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r := rest[0]
	return r >= 'A' && r <= 'Z'
}

// projectLogger recognises a project's own logging helpers: a function or
// method with a logging verb for a name, in a package whose last path
// element is a logger's (internal/common/logger.Error(ctx, msg)).
func projectLogger(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	last := path[strings.LastIndex(path, "/")+1:]
	switch last {
	case "log", "logger", "logging", "logs", "logutil", "xlog", "applog":
	default:
		return false
	}
	for _, v := range []string{"Debug", "Info", "Warn", "Error", "Print", "Log", "Trace", "Notice"} {
		if strings.HasPrefix(fn.Name(), v) {
			return true
		}
	}
	return false
}

// processLocal reports packages whose locks and semaphores live in the
// process (sync, x/sync/semaphore): not shared between replicas.
func processLocal(path string) bool {
	switch path {
	case "sync", "sync/atomic", "os", "runtime", "testing":
		return true
	}
	return strings.HasPrefix(path, "golang.org/x/sync")
}

// comparedToNil reports whether obj is compared with nil in body.
func (c *checker) comparedToNil(body *ast.BlockStmt, obj types.Object) bool {
	if obj == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok || found || (be.Op != token.EQL && be.Op != token.NEQ) {
			return !found
		}
		isObj := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && c.info.Uses[id] == obj
		}
		isNil := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && c.info.Uses[id] == types.Universe.Lookup("nil")
		}
		if (isObj(be.X) && isNil(be.Y)) || (isObj(be.Y) && isNil(be.X)) {
			found = true
		}
		return !found
	})
	return found
}
