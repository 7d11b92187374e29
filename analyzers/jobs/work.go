package jobs

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/signals"
)

func (f *finder) newJob(site ast.Node, name, schedule string, stack []ast.Node) *Job {
	return &Job{Site: site, SiteName: name, Schedule: schedule, Func: enclosingFunc(stack)}
}

// addLoopJob: the work is the body of a loop that receives from the ticker.
func (f *finder) addLoopJob(call *ast.CallExpr, name, schedule string, loop ast.Node, stack []ast.Node) {
	if f.seenLoops[loop] {
		return
	}
	f.seenLoops[loop] = true
	if f.retryShaped(loop) {
		return // a retry paced by the ticker: its wait is a backoff
	}
	j := f.newJob(call, name, schedule, stack)
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	}
	if body == nil {
		return // j.Work is an ast.Node: a nil *ast.BlockStmt in it would not be == nil
	}
	j.Work, j.WorkName = body, "loop body"
	f.scanWork(j, body)
	j.PerReplica = f.scopedLoop(j.Func, loop)
	f.finish(j, stack)
}

// addFuncJob: the work is a function value handed to a scheduler.
func (f *finder) addFuncJob(call *ast.CallExpr, name, schedule string, work ast.Expr, stack []ast.Node) {
	j := f.newJob(call, name, schedule, stack)
	switch w := ast.Unparen(work).(type) {
	case *ast.FuncLit:
		j.Work, j.WorkName = w.Body, "func literal"
		f.scanWork(j, w.Body)
	default:
		fn := f.funcRef(w)
		if fn == nil {
			return // a function value we cannot resolve: no evidence, no job
		}
		f.addFunc(j, fn)
	}
	f.finish(j, stack)
}

// addMethodJob: the work is the named method of a value (cron.Job's Run).
func (f *finder) addMethodJob(call *ast.CallExpr, name, schedule string, value ast.Expr, method string, stack []ast.Node) {
	t := f.pass.TypesInfo.TypeOf(value)
	if t == nil {
		return
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return // dynamic: which Run runs is not known here
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, f.pass.Pkg, method)
	fn, _ := obj.(*types.Func)
	if fn == nil {
		return
	}
	j := f.newJob(call, name, schedule, stack)
	f.addFunc(j, fn)
	f.finish(j, stack)
}

func (f *finder) addFunc(j *Job, fn *types.Func) {
	j.WorkName = shortName(fn)
	if d := f.eff.Decl(fn); d != nil {
		j.Work = d.Body
		f.scanWork(j, d.Body)
		if dir := f.dirs.OnFunc(f.pass.Fset, directive.PerReplica, d); dir != nil {
			j.PerReplica = "//gatesift:per-replica on " + fn.Name() + ": " + dir.Reason
		}
		if dir := f.dirs.OnFunc(f.pass.Fset, directive.LeaderOnly, d); dir != nil {
			j.Coordination = "//gatesift:leader-only on " + fn.Name()
		}
	} else {
		s := f.eff.Of(fn)
		j.Effects = append(j.Effects, s.Effects...)
		j.Coordination = s.Coordination
		j.Consumes = s.Consumes
		j.Telemetry = s.Telemetry
	}
	if f.kb.Match(signals.PerReplica, fn) != nil {
		j.PerReplica = fn.Name() + " is declared per-replica in the knowledge base"
	}
	if f.kb.Match(signals.LeaderOnly, fn) != nil {
		j.Coordination = fn.Name() + " is declared leader-only in the knowledge base"
	}
}

// bodyOf returns the body of a function literal or a function of this
// package named by e.
func (f *finder) bodyOf(e ast.Expr) *ast.BlockStmt {
	if lit, ok := ast.Unparen(e).(*ast.FuncLit); ok {
		return lit.Body
	}
	if d := f.eff.Decl(f.funcRef(e)); d != nil {
		return d.Body
	}
	return nil
}

// scanWork records the effects, coordination and local guards of the work.
func (f *finder) scanWork(j *Job, body ast.Node) {
	if body == nil {
		return
	}
	scan := f.eff.Scan(body)
	if c := scan.FirstCoordination(); c != nil && j.Coordination == "" {
		j.Coordination, j.CoordinationNode = c.Coordination, c.At()
	}
	j.Consumes = j.Consumes || scan.Consumes()
	j.Telemetry = j.Telemetry || scan.Telemetry()
	for _, ev := range scan.Events {
		for _, e := range ev.Effects {
			j.Effects = append(j.Effects, e)
			j.EffectCalls = append(j.EffectCalls, ev.Call)
		}
	}
	if scan.FirstCoordination() == nil {
		effs, calls := f.callbackEffects(body)
		j.Effects = append(j.Effects, effs...)
		j.EffectCalls = append(j.EffectCalls, calls...)
	}
	if j.Guard == "" {
		j.Guard, j.GuardNode = f.localGuard(body)
	}
}

// localGuard finds a process-local guard in the work: a sync.Once, a mutex,
// an atomic flag, or a boolean checked before the work.
func (f *finder) localGuard(body ast.Node) (string, ast.Node) {
	var name string
	var node ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if node != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(f.pass.TypesInfo, n).(*types.Func)
			if a := f.kb.Match(signals.Guards, fn); a != nil {
				name, node = shortName(fn)+" ("+a.Kind+", process-local)", n
			}
		case *ast.IfStmt:
			if id := boolFlag(f.pass.TypesInfo, n.Cond); id != nil && returnsEarly(n.Body) {
				name, node = "the in-memory flag "+id.Name+" (process-local)", n.Cond
			}
		}
		return true
	})
	return name, node
}

// boolFlag: `if running {` / `if s.busy {` / `if !started {` on a package or
// struct boolean.
func boolFlag(info *types.Info, cond ast.Expr) *ast.Ident {
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		cond = u.X
	}
	var id *ast.Ident
	switch c := ast.Unparen(cond).(type) {
	case *ast.Ident:
		id = c
	case *ast.SelectorExpr:
		id = c.Sel
	default:
		return nil
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || !types.Identical(v.Type(), types.Typ[types.Bool]) {
		return nil
	}
	if v.IsField() || v.Parent() == v.Pkg().Scope() {
		return id
	}
	return nil
}

func returnsEarly(b *ast.BlockStmt) bool {
	for _, s := range b.List {
		switch s := s.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if s.Tok == token.CONTINUE {
				return true
			}
		}
	}
	return false
}

// enqueueEffect is the effect of an asynq Scheduler registration or a
// PeriodicTaskManager's run: each tick enqueues the task.
func enqueueEffect(fn *types.Func, pos token.Position) effects.Effect {
	return effects.Effect{Kind: "send", Resource: "task queue (Redis)", API: fn.Pkg().Path() + ".(" + signals.RecvName(fn) + ")." + fn.Name(),
		Where: baseName(pos.Filename) + ":" + itoa(pos.Line)}
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}
