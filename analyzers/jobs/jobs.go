package jobs

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/signals"
)

// Job is one scheduler site and the work it runs.
type Job struct {
	Site     ast.Node // where a finding is reported: the call, or the for keyword
	SiteName string   // "time.NewTicker", "cron.AddFunc", "for loop with time.Sleep"
	Schedule string   // "every 1h0m0s", "cron \"@daily\"", "" when not constant
	Func     *ast.FuncDecl
	Work     ast.Node // the loop body or function body run on each tick; nil if imported
	WorkName string

	Effects     []effects.Effect
	EffectCalls []*ast.CallExpr // in this package, parallel to the effects seen here

	Coordination     string   // what coordinates the work, "" if nothing
	CoordinationNode ast.Node // where, when in this package
	Guard            string   // a process-local guard seen, "" if none
	GuardNode        ast.Node
	Designation      string // a static designation that enables the work
	DesignationNode  ast.Node
	PerReplica       string // why the work is per-replica, "" if not
	// NonService says why the work belongs to a load-generator, benchmark
	// or stress-test command rather than a service: reported only under
	// the strict profile.
	NonService string
	Consumes   bool
	Telemetry  bool // the work reads the process's own statistics
}

// Shared returns the effects that duplicate outcomes: accumulating writes
// and sends (all of them, idempotent and unknown too, under the strict
// profile).
func (j *Job) Shared(strict bool) []effects.Effect {
	var out []effects.Effect
	for _, e := range j.Effects {
		if e.Duplicates(strict) {
			out = append(out, e)
		}
	}
	return out
}

// Singleton reports whether the work is uncoordinated singleton work: it has
// shared effects and nothing makes running it on every replica safe. A
// load-generator command's work counts under the strict profile only.
func (j *Job) Singleton(strict bool) bool {
	return len(j.Shared(strict)) > 0 && j.Coordination == "" && j.PerReplica == "" && !j.Consumes &&
		(strict || j.NonService == "")
}

// Result is the package's jobs.
type Result struct {
	Jobs []*Job
	// failure records a panic of the analysis; the rules that depend on it
	// report it as an internal error instead of crashing the run.
	failure string
}

// Failure returns the internal error that stopped the analysis, or "".
func (r *Result) Failure() string { return r.failure }

// SchedulesParam is a fact on a function that runs one of its function
// parameters periodically (an every.Run(ctx, d, fn) helper): its call sites
// are scheduler sites.
type SchedulesParam struct {
	Param  int // index of the function parameter
	Period int // index of a time.Duration parameter, -1 if none
	Kind   string
}

// AFact marks SchedulesParam as a fact.
func (*SchedulesParam) AFact() {}

func (s *SchedulesParam) String() string { return "schedules param " + itoa(s.Param) }

// Analyzer finds the jobs; its result is a *Result.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesiftjobs",
	Doc:        "find scheduled and background work, its effects and its guards",
	Run:        run,
	Requires:   []*analysis.Analyzer{inspect.Analyzer, effects.Analyzer, directive.Analyzer, settings.Analyzer},
	FactTypes:  []analysis.Fact{(*SchedulesParam)(nil), (*HasHelpers)(nil), (*MakesTicker)(nil)},
	ResultType: reflect.TypeOf((*Result)(nil)),
}

type finder struct {
	pass  *analysis.Pass
	kb    *signals.Knowledge
	eff   *effects.Result
	dirs  *directive.Set
	insp  *inspector.Inspector
	files map[*ast.File]bool // files analysed (no tests, no generated)
	out   *Result
	// seenLoops avoids reporting a loop twice (a ticker loop that also sleeps).
	seenLoops map[ast.Node]bool
	// coordinatedFuncs: functions handed to a coordinator by name.
	coordinatedFuncs map[*types.Func]ast.Node
	distributedPkgs  map[string]bool // scheduler packages configured with a distributed option
	// schedulerVars: scheduler variables assigned in this package, and
	// whether their constructor was given a distributed option.
	schedulerVars map[types.Object]bool
	// reach memoises entriesCoordination per function; reachCut records
	// that a computation stopped at maxReach.
	reach    map[*types.Func]reachResult
	reachCut bool
	// commands: the package's command registrations, found on first need.
	commands *commandSet
}

func run(pass *analysis.Pass) (res any, err error) {
	out := new(Result)
	defer func() {
		if x := recover(); x != nil {
			out.Jobs, out.failure = nil, fmt.Sprintf("jobs analysis panicked: %v (%s)", x, stackTop())
			res, err = out, nil
		}
	}()
	conf, err := settings.Of(pass)
	if err != nil {
		return nil, err
	}
	f := &finder{
		pass:             pass,
		kb:               conf.Knowledge,
		eff:              pass.ResultOf[effects.Analyzer].(*effects.Result),
		dirs:             pass.ResultOf[directive.Analyzer].(*directive.Set),
		insp:             pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		files:            map[*ast.File]bool{},
		out:              out,
		seenLoops:        map[ast.Node]bool{},
		coordinatedFuncs: map[*types.Func]ast.Node{},
		distributedPkgs:  map[string]bool{},
		schedulerVars:    map[types.Object]bool{},
		reach:            map[*types.Func]reachResult{},
	}
	if msg := f.eff.Failure(); msg != "" {
		out.failure = msg
		return out, nil
	}
	relevant := false
	for _, file := range pass.Files {
		if rule.Skips(pass.Fset, file, pass.Pkg.Path(), conf.Config) {
			continue
		}
		f.files[file] = true
		for _, imp := range file.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if p == "time" || conf.Knowledge.Knows(p) {
				relevant = true
			}
		}
	}
	if !relevant && !importsScheduleFacts(pass) {
		return out, nil // fast exit: nothing here can schedule work
	}
	f.prepare()
	f.tickerMakers()
	f.find()
	f.registrationWrappers()
	f.findWrapperCalls()
	return out, nil
}

// importsScheduleFacts: a package that imports no scheduler may still call
// a project helper that schedules. Calling it means importing its package,
// so the direct imports' package facts answer without a look at every
// object fact of the program.
func importsScheduleFacts(pass *analysis.Pass) bool {
	for _, imp := range pass.Pkg.Imports() {
		if pass.ImportPackageFact(imp, new(HasHelpers)) {
			return true
		}
	}
	return false
}

// HasHelpers is a package fact: some function of the package schedules one
// of its parameters (a SchedulesParam fact).
type HasHelpers struct{}

// AFact marks HasHelpers as a fact.
func (*HasHelpers) AFact() {}

func (*HasHelpers) String() string { return "has scheduling helpers" }

// exportHelper records a scheduling helper and its package.
func (f *finder) exportHelper(fn *types.Func, sp *SchedulesParam) {
	f.pass.ExportObjectFact(fn, sp)
	f.pass.ExportPackageFact(&HasHelpers{})
}

func (f *finder) inScope(n ast.Node) bool {
	for file := range f.files {
		if file.FileStart <= n.Pos() && n.Pos() <= file.FileEnd {
			return true
		}
	}
	return false
}

// prepare records package-wide coordination: functions handed to a
// coordinator by name (OnStartedLeading: run), callbacks in a coordinator's
// config literal, and schedulers configured with a distributed elector or
// locker.
func (f *finder) prepare() {
	f.insp.Preorder([]ast.Node{(*ast.CompositeLit)(nil), (*ast.AssignStmt)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if !f.electionLiteral(n) {
				return
			}
			ast.Inspect(n, func(m ast.Node) bool {
				if e, ok := m.(ast.Expr); ok {
					if target := f.funcRef(e); target != nil {
						f.coordinatedFuncs[target] = n
					}
				}
				return true
			})
		case *ast.AssignStmt:
			// s, err := gocron.NewScheduler(opts...): remember whether an
			// option made it distributed.
			if len(n.Rhs) != 1 || len(n.Lhs) == 0 {
				return
			}
			call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return
			}
			fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
			if fn == nil || fn.Name() != "NewScheduler" {
				return
			}
			obj := f.objOf(n.Lhs[0])
			if obj == nil {
				return
			}
			distributed := false
			for _, arg := range call.Args {
				ast.Inspect(arg, func(m ast.Node) bool {
					if c, ok := m.(*ast.CallExpr); ok {
						if afn, _ := typeutil.Callee(f.pass.TypesInfo, c).(*types.Func); afn != nil {
							if a := f.kb.Match(signals.Coordinators, afn); a != nil && a.Kind == "option" {
								distributed = true
							}
						}
					}
					return true
				})
			}
			f.schedulerVars[obj] = distributed
		}
	})
	f.insp.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
		if fn == nil {
			return
		}
		a := f.kb.Match(signals.Coordinators, fn)
		if a == nil {
			return
		}
		if a.Kind == "option" {
			f.distributedPkgs[a.Pkg] = true
		}
		if a.Kind == "election" {
			ast.Inspect(call, func(m ast.Node) bool {
				if id, ok := m.(ast.Expr); ok {
					if target := f.funcRef(id); target != nil {
						f.coordinatedFuncs[target] = call
					}
				}
				return true
			})
		}
	})
}

// electionLiteral: a composite literal of a type from a leader election
// package (client-go's LeaderCallbacks, LeaderElectionConfig).
func (f *finder) electionLiteral(lit *ast.CompositeLit) bool {
	t := f.pass.TypesInfo.TypeOf(lit)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	path := named.Obj().Pkg().Path()
	for _, a := range f.kb.Coordinators {
		if a.Pkg == path && a.Kind == "election" {
			return true
		}
	}
	return false
}

// funcRef resolves an expression naming a function or method value.
func (f *finder) funcRef(e ast.Expr) *types.Func {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		fn, _ := f.pass.TypesInfo.Uses[e].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel, ok := f.pass.TypesInfo.Selections[e]; ok && sel.Kind() == types.MethodVal {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := f.pass.TypesInfo.Uses[e.Sel].(*types.Func)
		return fn
	}
	return nil
}

func (f *finder) find() {
	f.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil), (*ast.ForStmt)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || !f.inScope(n) {
			return true
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			f.call(n, stack)
		case *ast.ForStmt:
			f.sleepLoop(n, stack)
		}
		return true
	})
}

// findWrapperCalls adds the call sites of this package's own scheduling
// helpers, known only once their sites were seen.
func (f *finder) findWrapperCalls() {
	done := map[ast.Node]bool{}
	for _, j := range f.out.Jobs {
		done[j.Site] = true
	}
	f.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || done[n] || !f.inScope(n) {
			return true
		}
		call := n.(*ast.CallExpr)
		fn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
		if fn == nil || fn.Pkg() != f.pass.Pkg {
			return true
		}
		var sp SchedulesParam
		if f.pass.ImportObjectFact(fn, &sp) && sp.Param < len(call.Args) {
			period := ""
			if sp.Period >= 0 && sp.Period < len(call.Args) {
				period = f.durationText(call.Args[sp.Period])
			}
			f.addFuncJob(call, shortName(fn), period, call.Args[sp.Param], stack)
		}
		return true
	})
}

func enclosingFunc(stack []ast.Node) *ast.FuncDecl {
	for i := len(stack) - 1; i >= 0; i-- {
		if fd, ok := stack[i].(*ast.FuncDecl); ok {
			return fd
		}
	}
	return nil
}

// durationText renders a constant time.Duration argument.
func (f *finder) durationText(e ast.Expr) string {
	if e == nil {
		return ""
	}
	if tv, ok := f.pass.TypesInfo.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() == constant.Int {
			if n, ok := constant.Int64Val(tv.Value); ok {
				return "every " + time.Duration(n).String()
			}
		}
		if tv.Value.Kind() == constant.String {
			return "on \"" + constant.StringVal(tv.Value) + "\""
		}
	}
	return ""
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// stackTop names the frame that panicked, for the internal-error message.
func stackTop() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	for i, l := range lines {
		if strings.Contains(l, "panic(") && i+3 < len(lines) {
			return strings.TrimSpace(lines[i+3])
		}
	}
	return "no stack"
}
