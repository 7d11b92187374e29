package lockrenewal

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// This file decides whether the work done while a lock is held can outlast
// its TTL: loops, blocking calls without a deadline shorter than the TTL,
// and calls into functions that do either.

// workMethods are method names that run a caller's unit of work.
var workMethods = map[string]bool{"Run": true, "Execute": true, "Handle": true, "Process": true, "Perform": true,
	"Work": true, "Invoke": true, "Reconcile": true, "Call": true}

// unbounded reports whether n is work of unbounded duration, and says what.
func (c *checker) unbounded(n ast.Node, h *held) (string, bool) {
	switch x := n.(type) {
	case *ast.RangeStmt:
		t := c.info.TypeOf(x.X)
		if t == nil {
			return "", false
		}
		switch u := t.Underlying().(type) {
		case *types.Chan:
			return "a loop receiving from " + lockfacts.ExprText(x.X), true
		case *types.Array:
			return "", false
		case *types.Pointer:
			if _, ok := u.Elem().Underlying().(*types.Array); ok {
				return "", false
			}
		case *types.Basic:
			if tv := c.info.Types[x.X]; tv.Value != nil {
				return "", false // range 3
			}
		}
		if call := c.blockingCall(x.Body); call != nil {
			return "a loop over " + lockfacts.ExprText(x.X) + " calling " + callName(call), true
		}
	case *ast.ForStmt:
		if countedLoop(c.info, x) {
			return "", false
		}
		if call := c.blockingCall(x.Body); call != nil {
			if x.Cond == nil {
				return "an endless loop calling " + callName(call), true
			}
			return "a loop while " + lockfacts.ExprText(x.Cond) + " calling " + callName(call), true
		}
	case *ast.CallExpr:
		if c.usesBounded(x) {
			return "", false // ends with its context's deadline, before the TTL
		}
		callee := typeutil.Callee(c.info, x)
		switch obj := callee.(type) {
		case *types.Var:
			if namedOf(obj.Type()) == "context.CancelFunc" {
				return "", false
			}
			if c.factMode && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope() {
				return "", false // a package's hook (timeNow = time.Now), not its caller's callback
			}
			if _, ok := obj.Type().Underlying().(*types.Signature); ok {
				return "the callback " + lockfacts.ExprText(x.Fun), true
			}
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			if sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) && workMethods[obj.Name()] &&
				obj.Pkg() != nil && !lockfacts.StdPath(obj.Pkg().Path(), c.p.Pkg.Path()) {
				return "the job " + lockfacts.ExprText(x.Fun) + ", whose duration the caller decides", true
			}
			if obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Sleep" && len(x.Args) == 1 {
				if d, ok := lockfacts.IntConst(c.info, x.Args[0]); ok && h.op.TTLKnown && time.Duration(d) < h.op.TTL/2 {
					return "", false
				}
				if d, ok := lockfacts.IntConst(c.info, x.Args[0]); ok && h.op.API != nil && isRedsync(h.op.API.Pkg) && time.Duration(d) < 4*time.Second && strings.Contains(h.ttl, "default") {
					return "", false
				}
				return "time.Sleep(" + lockfacts.ExprText(x.Args[0]) + ")", true
			}
			if obj.Name() == "Wait" && sig.Recv() != nil {
				if n := namedOf(sig.Recv().Type()); n == "sync.WaitGroup" || n == "golang.org/x/sync/errgroup.Group" {
					return "waiting for " + lockfacts.ExprText(x.Fun), true
				}
			}
			if what, ok := c.calleeUnbounded(obj, h); ok {
				return "a call of " + lockfacts.ExprText(x.Fun) + ", which runs " + what, true
			}
			if w := c.crossWork(x, obj, h); w != nil {
				return "a call of " + lockfacts.ExprText(x.Fun) + ", which runs " + w.What + " (in " + w.In + ")", true
			}
		}
	}
	return "", false
}

func namedOf(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name()
	}
	return ""
}

// countedLoop: for i := 0; i < 3; i++ (a constant number of iterations).
func countedLoop(info *types.Info, x *ast.ForStmt) bool {
	init, ok := x.Init.(*ast.AssignStmt)
	if !ok || len(init.Lhs) != 1 || len(init.Rhs) != 1 || info.Types[init.Rhs[0]].Value == nil {
		return false
	}
	v, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return false
	}
	obj := info.ObjectOf(v)
	isV := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && obj != nil && info.ObjectOf(id) == obj
	}
	switch post := x.Post.(type) {
	case *ast.IncDecStmt:
		if !isV(post.X) {
			return false
		}
	case *ast.AssignStmt:
		if len(post.Lhs) != 1 || !isV(post.Lhs[0]) || (post.Tok != token.ADD_ASSIGN && post.Tok != token.SUB_ASSIGN) {
			return false
		}
	default:
		return false
	}
	b, ok := ast.Unparen(x.Cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
		return isV(b.X) && info.Types[b.Y].Value != nil
	}
	return false
}

// blockingCall returns a call in body that may take time: I/O, a callback,
// code outside the pure standard library, a sleep.
func (c *checker) blockingCall(body *ast.BlockStmt) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if c.usesBounded(call) {
			return true
		}
		switch obj := typeutil.Callee(c.info, call).(type) {
		case *types.Var:
			if namedOf(obj.Type()) != "context.CancelFunc" {
				found = call
			}
		case *types.Func:
			if obj.Pkg() == nil {
				return true
			}
			path := obj.Pkg().Path()
			if c.factMode && inModule(path, c.module) {
				// the module's own code counts where it is itself
				// unbounded (the facts' walk), not for being called
				return true
			}
			if !lockfacts.StdPath(path, c.p.Pkg.Path()) {
				found = call
				return false
			}
			if blockingStd(path, obj.Name()) {
				found = call
				return false
			}
		}
		return true
	})
	return found
}

func blockingStd(path, name string) bool {
	switch path {
	case "net/http", "database/sql", "net", "os/exec", "net/smtp", "net/rpc":
		return true
	case "time":
		return name == "Sleep"
	}
	return false
}

func callName(call *ast.CallExpr) string {
	return lockfacts.ExprText(call.Fun)
}

// deadlines returns the contexts of body derived with context.WithTimeout
// and a constant timeout shorter than the lock's TTL.
func (c *checker) deadlines(body *ast.BlockStmt, h *held) map[types.Object]bool {
	if h.ttlDur <= 0 {
		return nil
	}
	var out map[types.Object]bool
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		fn := lockfacts.Callee(c.info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || fn.Name() != "WithTimeout" {
			return true
		}
		d, ok := lockfacts.IntConst(c.info, call.Args[1])
		if !ok || d <= 0 || time.Duration(d) >= h.ttlDur {
			return true
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok {
			if obj := c.info.ObjectOf(id); obj != nil {
				if out == nil {
					out = map[types.Object]bool{}
				}
				out[obj] = true
			}
		}
		return true
	})
	return out
}

// usesBounded reports whether call passes a context of c.bounded.
func (c *checker) usesBounded(call *ast.CallExpr) bool {
	if len(c.bounded) == 0 {
		return false
	}
	for _, a := range call.Args {
		if id, ok := ast.Unparen(a).(*ast.Ident); ok && c.bounded[c.info.ObjectOf(id)] {
			return true
		}
	}
	return false
}

// calleeUnbounded follows one call into a function of this package: the
// work under a lock is often `return s.sendAll(ctx)`.
func (c *checker) calleeUnbounded(fn *types.Func, h *held) (string, bool) {
	fd := c.decls[fn.Origin()]
	if fd == nil || c.depth > 0 {
		return "", false
	}
	c.depth++
	defer func() { c.depth-- }()
	var what string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil || what != "" {
			return false
		}
		switch n.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
			return false
		}
		if w, ok := c.unbounded(n, h); ok {
			what = w
			return false
		}
		return true
	})
	return what, what != ""
}

// retryLoop recognises an acquire retried by an endless loop that breaks
// out once it succeeds:
//
//	for {
//		if _, err := lc.AcquireLease(ctx, 30, nil); err == nil {
//			break
//		}
//		time.Sleep(backoff)
//	}
//	// held from here
//
// and returns the statements after the loop, where the lock is held (the
// rest of the loop body is the failure path).
func retryLoop(path []ast.Node, block []ast.Stmt, idx int, call *ast.CallExpr) ([]ast.Stmt, bool) {
	breaksOut := func(st ast.Stmt) bool {
		ifs, ok := st.(*ast.IfStmt)
		if !ok {
			return false
		}
		for _, s := range ifs.Body.List {
			if br, ok := s.(*ast.BranchStmt); ok && br.Tok == token.BREAK && br.Label == nil {
				return true
			}
		}
		return false
	}
	ifs, ok := block[idx].(*ast.IfStmt)
	headerIf := ok && !lockfacts.Inside(call, ifs.Body) && (ifs.Else == nil || !lockfacts.Inside(call, ifs.Else))
	if !(headerIf && breaksOut(block[idx])) && !(idx+1 < len(block) && breaksOut(block[idx+1])) {
		return nil, false
	}
	// the loop whose body is block
	for i := len(path) - 2; i >= 1; i-- {
		body, ok := path[i].(*ast.BlockStmt)
		if !ok || len(body.List) != len(block) || (len(block) > 0 && body.List[0] != block[0]) {
			continue
		}
		loop, ok := path[i-1].(*ast.ForStmt)
		if !ok || loop.Body != body || loop.Cond != nil {
			return nil, false
		}
		outer, j := lockfacts.EnclosingBlock(path[:i])
		if outer == nil {
			return nil, false
		}
		return outer[j+1:], true
	}
	return nil, false
}

// flagLoop recognises an acquire retried by a loop on a flag that the
// loop sets once the acquire succeeded:
//
//	for !locked {
//		if err := l.Obtain(ctx, ttl); err != nil { time.Sleep(d); continue }
//		locked = true
//	}
//	// held from here
//
// and returns the statements after the loop. The loop is the innermost one
// around the acquire (in the same function literal, if any), its condition
// is !v for a bool variable v, and its body assigns v = true after the
// acquire.
func (c *checker) flagLoop(path []ast.Node, call *ast.CallExpr) ([]ast.Stmt, bool) {
	for i := len(path) - 2; i >= 1; i-- {
		switch loop := path[i].(type) {
		case *ast.FuncLit, *ast.RangeStmt:
			return nil, false
		case *ast.ForStmt:
			not, ok := ast.Unparen(loop.Cond).(*ast.UnaryExpr)
			if !ok || not.Op != token.NOT {
				return nil, false
			}
			id, ok := ast.Unparen(not.X).(*ast.Ident)
			if !ok {
				return nil, false
			}
			v := c.info.ObjectOf(id)
			if v == nil || !types.Identical(v.Type(), types.Typ[types.Bool]) {
				return nil, false
			}
			sets := false
			ast.Inspect(loop.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok || sets || as.Pos() < call.End() || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
					return !sets
				}
				lhs, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident)
				rhs, ok2 := ast.Unparen(as.Rhs[0]).(*ast.Ident)
				sets = ok && ok2 && c.info.ObjectOf(lhs) == v && c.info.Uses[rhs] == types.Universe.Lookup("true")
				return !sets
			})
			if !sets {
				return nil, false
			}
			outer, j := lockfacts.EnclosingBlock(path[:i+1])
			if outer == nil {
				return nil, false
			}
			return outer[j+1:], true
		}
	}
	return nil, false
}

// errNotNil reports whether cond is `e != nil` for an error e: the branch
// taken when the acquire failed.
func (c *checker) errNotNil(cond ast.Expr) bool {
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || be.Op != token.NEQ {
		return false
	}
	isNil := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && c.info.Uses[id] == types.Universe.Lookup("nil")
	}
	isErr := func(e ast.Expr) bool {
		t := c.info.TypeOf(e)
		return t != nil && types.Identical(t, types.Universe.Lookup("error").Type())
	}
	return isNil(be.Y) && isErr(be.X) || isNil(be.X) && isErr(be.Y)
}
