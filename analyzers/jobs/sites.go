package jobs

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/signals"
)

// call handles a call that may be a scheduler site.
func (f *finder) call(call *ast.CallExpr, stack []ast.Node) {
	fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
	if fn == nil {
		return
	}
	arg := func(i int, ok bool) ast.Expr {
		if ok && i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	if a := f.kb.Match(signals.Schedulers, fn); a != nil {
		name := shortName(fn)
		period := f.durationText(arg(a.Arg("period")))
		if period == "" {
			period = f.durationText(arg(a.Arg("spec")))
		}
		switch a.Kind {
		case "ticker", "tick", "timer":
			if work := arg(a.Arg("fn")); work != nil { // AfterFunc
				if f.rearmed(work) && !f.rearmOfArmed(work, stack) {
					f.addFuncJob(call, name, period, work, stack)
				}
				return
			}
			for _, loop := range f.receivingLoops(call, stack, a.Kind == "timer") {
				f.addLoopJob(call, name, period, loop, stack)
			}
		case "cron", "loop":
			if f.distributedScheduler(call, a.Pkg) {
				return // every job of this scheduler goes through the distributed elector/locker
			}
			if work := arg(a.Arg("fn")); work != nil {
				f.addFuncJob(call, name, period, work, stack)
			} else if job := arg(a.Arg("job")); job != nil {
				f.addJobValue(call, name, period, job, stack)
			} else if task := arg(a.Arg("task")); task != nil {
				if tc, ok := ast.Unparen(task).(*ast.CallExpr); ok {
					tfn, _ := typeutil.Callee(f.pass.TypesInfo, tc).(*types.Func)
					if ta := f.kb.Match(signals.Schedulers, tfn); ta != nil && ta.Kind == "task" {
						if i, ok := ta.Arg("fn"); ok && i < len(tc.Args) {
							f.addFuncJob(call, name, period, tc.Args[i], stack)
						}
					}
				}
			}
		case "enqueue":
			j := f.newJob(call, name, period, stack)
			j.WorkName = "enqueue of the registered task"
			eff := enqueueEffect(fn, f.pass.Fset.Position(call.Pos()))
			applyDedup(j, &eff, f.registerDedup(call, a, stack))
			j.Effects = append(j.Effects, eff)
			j.EffectCalls = append(j.EffectCalls, call)
			f.finish(j, stack)
		case "enqueue-configs":
			f.addConfigsJob(call, fn, a, stack)
		}
		return
	}
	var mt MakesTicker
	if f.pass.ImportObjectFact(fn.Origin(), &mt) {
		// a project's own clock: its NewTicker wraps time.NewTicker
		period := ""
		if mt.Period < len(call.Args) {
			period = f.durationText(call.Args[mt.Period])
		}
		for _, loop := range f.receivingLoops(call, stack, mt.Kind == "timer") {
			f.addLoopJob(call, shortName(fn), period, loop, stack)
		}
		return
	}
	var sp SchedulesParam
	if fn.Pkg() != f.pass.Pkg && f.pass.ImportObjectFact(fn.Origin(), &sp) {
		if sp.Param < len(call.Args) {
			period := ""
			if sp.Period >= 0 && sp.Period < len(call.Args) {
				period = f.durationText(call.Args[sp.Period])
			}
			f.addFuncJob(call, shortName(fn), period, call.Args[sp.Param], stack)
		}
	}
}

// sleepLoop handles `for { ...; time.Sleep(d) }` and `for { select { case
// <-time.After(d): } }`: the for keyword is the site.
func (f *finder) sleepLoop(loop *ast.ForStmt, stack []ast.Node) {
	if loop.Cond != nil && !stopCondition(loop.Cond) || f.seenLoops[loop] {
		return
	}
	var pacer *ast.CallExpr
	var pacerName, period string
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if pacer != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false // a nested loop or closure paces itself
		case *ast.IfStmt:
			return false // a sleep under an if is a backoff, not the loop's pace
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(f.pass.TypesInfo, n).(*types.Func)
			if a := f.kb.Match(signals.Schedulers, fn); a != nil && (a.Kind == "sleep" || a.Kind == "after") {
				pacer, pacerName = n, shortName(fn)
				if i, ok := a.Arg("period"); ok && i < len(n.Args) {
					period = f.durationText(n.Args[i])
				}
			}
		}
		return true
	})
	if pacer == nil || retryLoop(loop) || f.retryShaped(loop) {
		return
	}
	f.seenLoops[loop] = true
	j := f.newJob(forKeyword{loop}, "for loop paced by "+pacerName, period, stack)
	j.Work, j.WorkName = loop.Body, "loop body"
	f.scanWork(j, loop.Body)
	j.PerReplica = f.scopedLoop(j.Func, loop)
	f.finish(j, stack)
}

// forKeyword spans the for keyword only, where LE1001 reports a bare loop.
type forKeyword struct{ loop *ast.ForStmt }

func (k forKeyword) Pos() token.Pos { return k.loop.For }
func (k forKeyword) End() token.Pos { return k.loop.For + token.Pos(len("for")) }

// stopCondition accepts loop conditions that only wait for shutdown
// (for ctx.Err() == nil, for !stopped, for running).
func stopCondition(cond ast.Expr) bool {
	text := strings.ToLower(exprText(cond))
	for _, w := range []string{"ctx", "err()", "stop", "done", "quit", "closed", "shutdown", "running", "exit", "cancel", "alive"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// retryLoop: a loop that ends when an attempt succeeds retries one thing;
// it is not periodic work. `for { try; if ok { return }; sleep }`: an if
// directly in the loop body leaves the loop (return, or a break out of this
// loop) on a condition that is neither a failure (err != nil: a periodic
// loop that stops on error) nor a shutdown (ctx.Err(), stopped, done).
func retryLoop(loop *ast.ForStmt) bool {
	if exitsOnSuccess(loop) {
		return true
	}
	for _, st := range loop.Body.List {
		n, ok := st.(*ast.IfStmt)
		if !ok || !leavesLoop(n.Body) || failureCondition(n.Cond) || stopCondition(n.Cond) {
			continue
		}
		return true
	}
	return false
}

// exitsOnSuccess: somewhere in the loop, `if err == nil { return }` (or
// break).
func exitsOnSuccess(loop *ast.ForStmt) bool {
	retry := false
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if be, ok := n.Cond.(*ast.BinaryExpr); ok && be.Op == token.EQL {
				if id, ok := be.Y.(*ast.Ident); ok && id.Name == "nil" {
					for _, s := range n.Body.List {
						switch s := s.(type) {
						case *ast.ReturnStmt:
							retry = true
						case *ast.BranchStmt:
							if s.Tok == token.BREAK && s.Label == nil {
								retry = true
							}
						}
					}
				}
			}
		}
		return !retry
	})
	return retry
}

// leavesLoop: the block ends in a return or an unlabeled break.
func leavesLoop(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK && s.Label == nil
	}
	return false
}

// failureCondition: err != nil, or a disjunction with one.
func failureCondition(cond ast.Expr) bool {
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	if be.Op == token.LOR {
		return failureCondition(be.X) || failureCondition(be.Y)
	}
	if be.Op != token.NEQ {
		return false
	}
	id, ok := ast.Unparen(be.Y).(*ast.Ident)
	return ok && id.Name == "nil" && strings.Contains(strings.ToLower(exprText(be.X)), "err")
}

// receivingLoops finds the loops that receive from the channel a ticker or
// timer call creates: `for range time.Tick(d)`, `for range t.C`, or a loop
// with `<-t.C` in a select case or statement. Timers count only when re-armed
// with Reset.
func (f *finder) receivingLoops(call *ast.CallExpr, stack []ast.Node, needReset bool) []ast.Node {
	parent := stack[len(stack)-2]
	if rs, ok := parent.(*ast.RangeStmt); ok && rs.X == call {
		return []ast.Node{rs}
	}
	var obj types.Object
	switch p := parent.(type) {
	case *ast.AssignStmt:
		for i, rhs := range p.Rhs {
			if rhs == call && i < len(p.Lhs) {
				obj = f.objOf(p.Lhs[i])
			}
		}
	case *ast.ValueSpec:
		for i, v := range p.Values {
			if v == call && i < len(p.Names) {
				obj = f.pass.TypesInfo.Defs[p.Names[i]]
			}
		}
	case *ast.KeyValueExpr:
		if id, ok := p.Key.(*ast.Ident); ok {
			obj = f.pass.TypesInfo.ObjectOf(id)
		}
	}
	if obj == nil {
		return nil
	}
	// A local variable is received from in its function; a field or a
	// package-level variable anywhere in the package. The scope is kept as
	// a *ast.FuncDecl: a nil one stored in an ast.Node would not be == nil.
	scope := enclosingFunc(stack)
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		scope = nil
	}
	var loops []ast.Node
	reset := !needReset
	visit := func(root ast.Node) {
		var loopStack []ast.Node
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				if rs, ok := n.(*ast.RangeStmt); ok && f.refersTo(rs.X, obj) {
					loops = appendNode(loops, rs)
				}
				loopStack = append(loopStack, n)
			case *ast.UnaryExpr:
				if n.Op == token.ARROW && f.refersTo(n.X, obj) && len(loopStack) > 0 {
					loops = appendNode(loops, innermostLoop(loopStack, n))
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reset" && f.refersTo(sel.X, obj) {
					reset = true
				}
			}
			return true
		})
	}
	if scope != nil {
		visit(scope)
	} else {
		for _, file := range f.pass.Files { // not the map: the loops' order is the jobs' order
			if f.files[file] {
				visit(file)
			}
		}
	}
	if !reset {
		return nil
	}
	return loops
}

// innermostLoop returns the last loop on the stack that contains n.
func innermostLoop(loops []ast.Node, n ast.Node) ast.Node {
	for i := len(loops) - 1; i >= 0; i-- {
		if loops[i].Pos() <= n.Pos() && n.End() <= loops[i].End() {
			return loops[i]
		}
	}
	return loops[0]
}

func appendNode(list []ast.Node, n ast.Node) []ast.Node {
	for _, x := range list {
		if x == n {
			return list
		}
	}
	return append(list, n)
}

func (f *finder) objOf(e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return f.pass.TypesInfo.ObjectOf(e)
	case *ast.SelectorExpr:
		return f.pass.TypesInfo.ObjectOf(e.Sel)
	}
	return nil
}

// refersTo: e is obj, obj.C, or x.obj.C for a field; or the channel method
// of a clock abstraction's ticker or timer, obj.C() or obj.Chan().
func (f *finder) refersTo(e ast.Expr, obj types.Object) bool {
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "C" || sel.Sel.Name == "Chan") {
			if _, isChan := f.pass.TypesInfo.TypeOf(call).Underlying().(*types.Chan); isChan && f.objOf(sel.X) == obj {
				return true
			}
		}
	}
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "C" {
		if f.objOf(sel.X) == obj {
			return true
		}
	}
	return f.objOf(e) == obj
}

// rearmOfArmed: the AfterFunc call sits in the very function it schedules
// (`func (s *S) tick() { ...; s.t = time.AfterFunc(d, s.tick) }`) and
// another AfterFunc site arms that function first: the inner call re-arms
// the same job, which is reported once, at the first site.
func (f *finder) rearmOfArmed(work ast.Expr, stack []ast.Node) bool {
	fn := f.funcRef(work)
	decl := enclosingFunc(stack)
	if fn == nil || decl == nil || f.pass.TypesInfo.Defs[decl.Name] != fn {
		return false
	}
	armed := false
	f.insp.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if armed || decl.Pos() <= call.Pos() && call.End() <= decl.End() {
			return
		}
		afn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
		if a := f.kb.Match(signals.Schedulers, afn); a != nil {
			if i, ok := a.Arg("fn"); ok && i < len(call.Args) && f.funcRef(call.Args[i]) == fn {
				armed = true
			}
		}
	})
	return armed
}

// rearmed: an AfterFunc callback that resets its timer or schedules itself
// again runs periodically.
func (f *finder) rearmed(work ast.Expr) bool {
	body := f.bodyOf(work)
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reset" {
				found = true
			}
			// time.AfterFunc, or a clock's AfterFunc: it schedules itself again
			if fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func); fn != nil {
				if a := f.kb.Match(signals.Schedulers, fn); a != nil && a.Kind == "timer" {
					if _, hasFn := a.Arg("fn"); hasFn {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func shortName(fn *types.Func) string {
	if r := signals.RecvName(fn); r != "" {
		return fn.Pkg().Name() + "." + r + "." + fn.Name()
	}
	if fn.Pkg() == nil {
		return fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}

func exprText(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			b.WriteString(n.Name + " ")
		case *ast.CallExpr:
			defer b.WriteString("() ")
		}
		return true
	})
	return b.String()
}

// distributedScheduler: the scheduler a job is registered on was built with
// a distributed elector or locker. A scheduler variable built in this
// package says so itself; one we cannot trace (a parameter, a field) is
// taken as distributed when the package configures any scheduler that way.
func (f *finder) distributedScheduler(call *ast.CallExpr, pkg string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return f.distributedPkgs[pkg]
	}
	root := sel.X
	for {
		// s.Every(1).Day().Do(fn): walk the chain down to the scheduler.
		c, ok := ast.Unparen(root).(*ast.CallExpr)
		if !ok {
			break
		}
		inner, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			break
		}
		root = inner.X
	}
	if obj := f.objOf(root); obj != nil {
		if distributed, known := f.schedulerVars[obj]; known {
			return distributed
		}
	}
	return f.distributedPkgs[pkg]
}
