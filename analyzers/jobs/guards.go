package jobs

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/signals"
)

// finish decides what guards the job's site, records wrapper facts, and
// keeps the job.
func (f *finder) finish(j *Job, stack []ast.Node) {
	if j.Site == nil {
		return
	}
	if d := f.dirs.At(f.pass.Fset, directive.PerReplica, j.Site.Pos()); d != nil {
		j.PerReplica = "//gatesift:per-replica: " + d.Reason
	}
	if j.Func != nil {
		if d := f.dirs.OnFunc(f.pass.Fset, directive.PerReplica, j.Func); d != nil && j.PerReplica == "" {
			j.PerReplica = "//gatesift:per-replica on " + j.Func.Name.Name + ": " + d.Reason
		}
	}
	if j.PerReplica == "" && j.Telemetry && httpSendsOnly(j.Effects) {
		j.PerReplica = "posts this process's own statistics (the work reads its runtime or Prometheus metrics): per-replica telemetry"
	}
	if j.PerReplica == "" && httpSendsOnly(j.Effects) && len(j.EffectCalls) == len(j.Effects) {
		j.PerReplica = f.eff.OwnBatch(j.EffectCalls)
	}
	if j.PerReplica == "" && httpSendsOnly(j.Effects) && len(j.EffectCalls) == len(j.Effects) {
		j.PerReplica = f.eff.OwnRefresh(j.EffectCalls)
	}
	if j.PerReplica == "" && httpSendsOnly(j.Effects) && len(j.EffectCalls) == len(j.Effects) {
		j.PerReplica = f.eff.OwnHeartbeat(j.EffectCalls)
	}
	if j.PerReplica == "" && httpSendsOnly(j.Effects) && len(j.EffectCalls) == len(j.Effects) {
		j.PerReplica = f.eff.OwnHandles(j.EffectCalls)
	}
	if j.Coordination == "" {
		j.Coordination, j.CoordinationNode = f.siteCoordination(stack, 0)
	}
	j.Designation, j.DesignationNode = f.siteDesignation(stack, 0)
	j.NonService = f.nonService(j, stack)
	f.exportWrapper(j)
	f.out.Jobs = append(f.out.Jobs, j)
}

// httpSendsOnly: every effect is an HTTP send (a report to an endpoint),
// none a write to a store, a queue or a mailbox.
func httpSendsOnly(list []effects.Effect) bool {
	for _, e := range list {
		if e.Kind != "send" || !strings.HasPrefix(e.API, "net/http.") && !strings.HasPrefix(e.Resource, "HTTP ") {
			return false
		}
	}
	return len(list) > 0
}

// siteCoordination looks for coordination around the site: a coordinator
// callback it sits in, a leader-only function, or a function that is only
// ever started from coordinated code (followed up to two callers up).
func (f *finder) siteCoordination(stack []ast.Node, depth int) (string, ast.Node) {
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(f.pass.TypesInfo, n).(*types.Func)
			if a := f.kb.Match(signals.Coordinators, fn); a != nil && (a.Kind == "election" || a.Kind == "lock" || a.Kind == "campaign") {
				return shortName(fn), n
			}
		case *ast.CompositeLit:
			if f.electionLiteral(n) {
				return "a leader election callback", n
			}
		case *ast.BlockStmt:
			// A lock or campaign earlier in an enclosing block dominates the site.
			if i+1 < len(stack) {
				if name, node := f.coordinationBefore(n, stack[i+1].Pos()); name != "" {
					return name, node
				}
			}
		case *ast.FuncDecl:
			fn, _ := f.pass.TypesInfo.Defs[n.Name].(*types.Func)
			if fn == nil {
				return "", nil
			}
			if by, ok := f.coordinatedFuncs[fn]; ok {
				return "handed to a leader election callback", by
			}
			if f.leaderElectedRunnable(fn) {
				return "a controller-runtime Runnable, started only on the elected leader", n.Name
			}
			if d := f.dirs.OnFunc(f.pass.Fset, directive.LeaderOnly, n); d != nil {
				return "//gatesift:leader-only on " + n.Name.Name, n.Name
			}
			if f.kb.Match(signals.LeaderOnly, fn) != nil {
				return n.Name.Name + " is declared leader-only", n.Name
			}
			if depth < maxReach {
				return f.entriesCoordination(fn, depth)
			}
			f.reachCut = true
			return "", nil
		}
	}
	return "", nil
}

// coordinationBefore returns a coordinator call in the statements of block
// before pos.
func (f *finder) coordinationBefore(block *ast.BlockStmt, pos token.Pos) (string, ast.Node) {
	for _, s := range block.List {
		if s.Pos() >= pos {
			break
		}
		var name string
		var node ast.Node
		ast.Inspect(s, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
				return false // runs elsewhere or later: it does not guard what follows
			}
			if name != "" {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok && f.knownAPI(call) {
				// Only a lock or claim taken right here dominates the site; a
				// helper that coordinates its own work inside says nothing
				// about the statements after its call.
				ev := f.eff.Scan(call)
				if c := ev.FirstCoordination(); c != nil && c.Call == call {
					name, node = c.Coordination, c.Call
				}
			}
			return name == ""
		})
		if name != "" {
			return name, node
		}
	}
	return "", nil
}

// knownAPI: the call is to an API the knowledge base names.
func (f *finder) knownAPI(call *ast.CallExpr) bool {
	fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
	return f.kb.Match(signals.Coordinators, fn) != nil || f.kb.Match(signals.Effects, fn) != nil
}

// designationWords: flags, env vars and config fields that pick the one
// instance that runs singleton work.
var designationWords = regexp.MustCompile(`(?i)(leader|scheduler|cron|primary|master|singleton|ordinal|run_?jobs|jobs_?enabled|worker_?enabled|enable_?(jobs|worker|cron|scheduler)|is_?main|main_?node)`)

// siteDesignation finds an if that enables the site (or the function that
// starts it, up to two callers up) on a static designation.
func (f *finder) siteDesignation(stack []ast.Node, depth int) (string, ast.Node) {
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.IfStmt:
			if i+1 < len(stack) && stack[i+1] == n.Body || i+1 < len(stack) && stack[i+1] == n.Else {
				if what := f.designation(n.Cond); what != "" {
					return what, n.Cond
				}
				if what := f.ordinalDesignation(n.Cond, stack[i+1] == n.Body); what != "" {
					return what, n.Cond
				}
			}
		case *ast.BlockStmt:
			// `if !cfg.SchedulerEnabled { return }` earlier in the block.
			if i+1 < len(stack) {
				for _, s := range n.List {
					if s.Pos() >= stack[i+1].Pos() {
						break
					}
					if ifs, ok := s.(*ast.IfStmt); ok && returnsEarly(ifs.Body) {
						if what := f.designation(ifs.Cond); what != "" {
							return what, ifs.Cond
						}
						if what := f.ordinalDesignation(ifs.Cond, false); what != "" {
							return what, ifs.Cond
						}
					}
				}
			}
		case *ast.FuncDecl:
			fn, _ := f.pass.TypesInfo.Defs[n.Name].(*types.Func)
			if fn == nil || depth >= 2 {
				return "", nil
			}
			var what string
			var node ast.Node
			f.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(m ast.Node, push bool, st []ast.Node) bool {
				if !push || what != "" {
					return true
				}
				if callee, _ := typeutil.Callee(f.pass.TypesInfo, m.(*ast.CallExpr)).(*types.Func); callee == fn {
					what, node = f.siteDesignation(st, depth+1)
				}
				return true
			})
			return what, node
		}
	}
	return "", nil
}

// designation describes a condition that designates one instance
// statically, or returns "".
func (f *finder) designation(cond ast.Expr) string {
	var what string
	ast.Inspect(cond, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(f.pass.TypesInfo, n).(*types.Func)
			if d := f.designationCall(n); d != "" {
				what = d
				return false
			}
			if fn != nil && designationWords.MatchString(fn.Name()) && returnsBool(fn) {
				what = "config " + fn.Name() + "()"
				return false
			}
		case *ast.Ident:
			obj := f.pass.TypesInfo.ObjectOf(n)
			v, ok := obj.(*types.Var)
			if !ok {
				return true
			}
			if origin := f.designationOrigin(v); origin != "" {
				what = origin
			} else if designationWords.MatchString(n.Name) &&
				(types.Identical(v.Type().Underlying(), types.Typ[types.Bool]) || isBoolPointer(v.Type())) {
				what = "the setting " + n.Name
			}
		}
		return true
	})
	return what
}

// designationOrigin: a variable assigned from a designation API
// (hostname, _ := os.Hostname()) names that API.
func (f *finder) designationOrigin(v *types.Var) string {
	var origin string
	f.insp.Preorder([]ast.Node{(*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)}, func(n ast.Node) {
		if origin != "" {
			return
		}
		var lhs []*ast.Ident
		var rhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				id, _ := e.(*ast.Ident)
				lhs = append(lhs, id)
			}
			rhs = n.Rhs
		case *ast.ValueSpec:
			lhs, rhs = n.Names, n.Values
		}
		for _, id := range lhs {
			if id == nil || f.pass.TypesInfo.ObjectOf(id) != v || len(rhs) == 0 {
				continue
			}
			call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
			if !ok {
				continue
			}
			if d := f.designationCall(call); d != "" {
				origin = d
			}
		}
	})
	return origin
}

func returnsBool(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type().Underlying(), types.Typ[types.Bool])
}

func isBoolPointer(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	return ok && types.Identical(p.Elem().Underlying(), types.Typ[types.Bool])
}

// exportWrapper: when the work calls a function parameter of the function
// that schedules it, that function is a scheduling helper.
func (f *finder) exportWrapper(j *Job) {
	if j.Func == nil || j.Work == nil {
		return
	}
	fn, _ := f.pass.TypesInfo.Defs[j.Func.Name].(*types.Func)
	if fn == nil {
		return
	}
	sig := fn.Type().(*types.Signature)
	params := map[types.Object]int{}
	period := -1
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		if _, ok := p.Type().Underlying().(*types.Signature); ok {
			params[p] = i
		}
		if named, ok := p.Type().(*types.Named); ok && named.Obj().Pkg() != nil &&
			named.Obj().Pkg().Path() == "time" && named.Obj().Name() == "Duration" {
			period = i
		}
	}
	if len(params) == 0 {
		return
	}
	ast.Inspect(j.Work, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		if i, ok := params[f.pass.TypesInfo.Uses[id]]; ok {
			f.exportHelper(fn, &SchedulesParam{Param: i, Period: period, Kind: j.SiteName})
			return false
		}
		return true
	})
}

// designationCall describes a call that designates an instance: the
// instance's own name (os.Hostname), or an environment variable, flag or
// config key whose constant name says leader/scheduler/cron...; other
// settings are feature toggles that every replica shares.
func (f *finder) designationCall(call *ast.CallExpr) string {
	fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
	a := f.kb.Match(signals.Designations, fn)
	if a == nil {
		return ""
	}
	if a.Kind == "identity" {
		return shortName(fn)
	}
	i, ok := a.Arg("key")
	if !ok || i >= len(call.Args) {
		return ""
	}
	tv := f.pass.TypesInfo.Types[call.Args[i]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return ""
	}
	key := constant.StringVal(tv.Value)
	if a.Kind == "env" && regexp.MustCompile(`(?i)^(hostname|pod_name|node_name|pod_ordinal)$`).MatchString(key) {
		return shortName(fn) + "(" + strconv.Quote(key) + ")"
	}
	if !designationWords.MatchString(key) {
		return ""
	}
	return shortName(fn) + "(" + strconv.Quote(key) + ")"
}

// leaderElectedRunnable: Start(ctx) error of a type in a package that uses
// controller-runtime is a manager.Runnable; the manager starts it only on
// the elected leader unless NeedLeaderElection says false.
func (f *finder) leaderElectedRunnable(fn *types.Func) bool {
	if fn.Name() != "Start" || !f.importsControllerRuntime() {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil || sig.Params().Len() != 1 || sig.Results().Len() != 1 ||
		!isContext(sig.Params().At(0).Type()) {
		return false
	}
	recv := sig.Recv().Type()
	obj, _, _ := types.LookupFieldOrMethod(recv, true, fn.Pkg(), "NeedLeaderElection")
	need, ok := obj.(*types.Func)
	if !ok {
		return true // the default: leader election
	}
	d := f.eff.Decl(need)
	if d == nil || len(d.Body.List) != 1 {
		return false
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	id, ok := ret.Results[0].(*ast.Ident)
	return ok && id.Name == "true"
}

func (f *finder) importsControllerRuntime() bool {
	for _, imp := range f.pass.Pkg.Imports() {
		if strings.HasPrefix(imp.Path(), "sigs.k8s.io/controller-runtime") {
			return true
		}
	}
	return false
}

func isContext(t types.Type) bool {
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "context" && named.Obj().Name() == "Context"
}
