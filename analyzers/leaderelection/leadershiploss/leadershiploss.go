package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/signals"
)

// Analyzer reports LE4001.
var Analyzer = rule.New(rule.Spec{
	ID:        "LE4001",
	Run:       run,
	FactTypes: []analysis.Fact{new(Forwards), new(Renews), new(ElectedFields), new(ManagerErr), new(LossSurvives), new(Gates), new(GatesReported), new(BlindLoop), new(PacedRenew), new(FlagLease)},
	Requires:  []*analysis.Analyzer{effects.Analyzer},
})

const schedulers = signals.Schedulers

type checker struct {
	p    *rule.Pass
	info *types.Info

	decls   map[*types.Func]*ast.FuncDecl
	enclose map[ast.Node]*ast.FuncDecl // site node -> enclosing declaration
	// fieldParam: a struct field that stores a parameter of a function
	// (config{startWork: startWork}), for wrappers that keep the callback in
	// a struct and call it from the real callbacks literal.
	fieldParam map[*types.Var]paramRef
	local      map[*types.Func]*Forwards
	checked    map[ast.Node]bool
	renews     map[*types.Func]bool // helpers of this package that wrap a renewal
	renewVia   map[*types.Func]string
	lockPkg    *lockfacts.Package // the package's lock operations, read on first use
	// forwardsGen counts the changes of local; siteCache holds each
	// file's sites with the generation they were walked at (sites.go)
	forwardsGen int
	siteCache   map[*ast.File]fileSites
	// lateReported: the late calls of stored start callbacks reported
	// (latestart.go)
	lateReported map[token.Pos]bool
}

// site is one place a leader callback is configured.
type site struct {
	fd       *ast.FuncDecl // enclosing declaration (may be nil)
	start    ast.Expr      // the OnStartedLeading value
	stop     ast.Expr      // the OnStoppedLeading value, nil when absent
	stopKey  ast.Node      // where the stop callback (or its absence) is
	stopsAny bool          // a wrapper's own loss handling stops the work
	via      string        // the election API
	ctxOnly  bool          // no stop callback: the work's context is the only signal
	node     ast.Node      // the literal or the wrapper call
}

func run(p *rule.Pass) error {
	c := &checker{
		p: p, info: p.TypesInfo,
		decls:      map[*types.Func]*ast.FuncDecl{},
		enclose:    map[ast.Node]*ast.FuncDecl{},
		fieldParam: map[*types.Var]paramRef{},
		local:      map[*types.Func]*Forwards{},
		checked:    map[ast.Node]bool{},
		renews:     map[*types.Func]bool{},
		renewVia:   map[*types.Func]string{},
	}
	files := p.Pass.Files // facts must be exported for every file
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					c.decls[fn] = fd
				}
			}
		}
	}
	// work gated on an election signal (gated.go): its parts may be in
	// packages that know nothing of elections, so this runs everywhere
	g := newGates()
	c.importGates(g)
	c.findElected(g, files)
	c.findManagerErr(g, files)
	// a test that runs the manager and drops its error is not the
	// deployed process: only the files the rules read say how it survives
	survives := c.findSurvives(g, c.deployedFiles())
	for h, at := range survives {
		g.survives[h] = at
	}
	gated := c.findGates(g, files)
	// leases whose loss is only a flag (flaglease.go, flagholder.go): the
	// facts for every package, the holders' reports where the rule runs
	if eff, _ := p.ResultOf[effects.Analyzer].(*effects.Result); eff != nil {
		leases := c.exportFlagLeases(eff)
		if !p.FactsOnly() {
			c.checkFlagHolders(eff, leases)
		}
	}
	finish := func() error {
		if !p.FactsOnly() {
			c.joinGates(g, files)
		}
		c.exportGates(g, gated)
		return nil
	}

	if !p.FactsOnly() {
		// a renewal bounded by the expiry it asks for: read from the
		// calls themselves, whatever store the package talks to
		eff, _ := p.ResultOf[effects.Analyzer].(*effects.Result)
		var ix *deadlineIndex
		index := func() *deadlineIndex {
			if ix == nil {
				ix = newDeadlineIndex(eff, p.Files())
			}
			return ix
		}
		c.checkRenewDeadlines(eff, p.Files(), index)
		// a renewal with no deadline at all (unbounded.go): the loop and
		// the renewal may be in different packages
		if eff != nil && (p.ImportsKnown() || c.callsAny(p.Files(), "time", "Sleep", "NewTicker", "NewTimer", "After", "Tick")) && c.mayRenewUnbounded() {
			c.checkUnboundedRenewals(index())
		}
		// a leadership flag kept across a failed acquire (keptflag.go)
		if eff != nil {
			c.checkKeptFlags(index)
		}
		// leader work left running when the lease maintenance returns
		// (lostcancel.go): any lock type, known or not
		if eff != nil {
			c.checkLostCancels(eff, p.Files())
		}
	}
	if !p.ImportsKnown() && !c.importsForwarder() {
		return finish()
	}
	c.indexFields(files)
	c.findRenewers()

	// Wrappers: iterate to a fixpoint so wrappers of wrappers in the same
	// package are found whatever their order.
	for range 4 {
		if !c.deriveForwards(c.sites(files)) {
			break
		}
	}
	for _, s := range c.sites(files) {
		c.electedFromCallbacks(g, s)
	}
	for fn, f := range c.local {
		if fn.Pkg() == p.Pkg {
			p.ExportObjectFact(fn, f)
		}
	}
	// consumer-group claims (session.go): BlindLoop facts are exported
	// here; its reports are dropped where the rule is disabled
	c.checkSessionClaims()
	if p.FactsOnly() {
		return finish() // disabled here: the facts are all importers need
	}

	reportFiles := p.Files()
	for _, s := range c.sites(reportFiles) {
		c.checkSite(s)
		c.checkFlagSignal(s)
	}
	c.checkLocks(reportFiles)
	c.checkRenewLoops(reportFiles)
	c.checkHeldRenewals(reportFiles)
	c.checkOwnerLoops(reportFiles)
	return finish()
}

func (c *checker) callee(call *ast.CallExpr) *types.Func {
	return leadership.Callee(c.info, call)
}

// stopsWork reports whether a stop callback stops the work: it exits the
// process, panics, closes or cancels something, or calls anything the
// analysis does not know to be only logging or bookkeeping. A nil or absent
// callback, or one that only logs, does not. With wrapper set, calls of
// forwarded parameters are left to the call sites.
func (c *checker) stopsWork(fd *ast.FuncDecl, stop ast.Expr, wrapper bool) (bool, string) {
	if stop == nil {
		return false, "no OnStoppedLeading callback"
	}
	stop = ast.Unparen(stop)
	if id, ok := stop.(*ast.Ident); ok && c.info.Uses[id] == types.Universe.Lookup("nil") {
		return false, "OnStoppedLeading is nil"
	}
	var body *ast.BlockStmt
	if lit := c.closure(fd, stop); lit != nil {
		stop = lit
	}
	switch s := stop.(type) {
	case *ast.FuncLit:
		body = s.Body
	default:
		if fn, ok := c.funcOf(s); ok {
			if d := c.decls[fn]; d != nil && d.Body != nil {
				body = d.Body
			}
		}
	}
	if body == nil {
		return true, "" // an unknown function: it may stop the work
	}
	stops := false
	ast.Inspect(body, func(n ast.Node) bool {
		if stops {
			return false
		}
		if _, ok := n.(*ast.SendStmt); ok {
			stops = true // tells someone (errChan <- lost): they may stop the work
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if wrapper {
			if _, ok := c.forwarded(fd, call.Fun); ok {
				return true
			}
		}
		if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
			return true // a conversion
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			if b, ok := c.info.Uses[id].(*types.Builtin); ok {
				switch b.Name() {
				case "panic", "close":
					stops = true
				}
				return true
			}
		}
		fn := c.callee(call)
		if fn == nil || fn.Pkg() == nil {
			stops = true // a function value: may cancel
			return true
		}
		if logging(fn.Pkg().Path()) || isLoggerMethod(fn) {
			for _, p := range []string{"Fatal", "Panic", "DPanic", "Exit", "FlushAndExit"} {
				if strings.HasPrefix(fn.Name(), p) {
					stops = true
				}
			}
			// the arguments are what is logged; a logger chain's receiver
			// (log.V(2).Info) is logging too
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, func(m ast.Node) bool {
					if inner, ok := m.(*ast.CallExpr); ok {
						if f := c.callee(inner); f == nil || f.Pkg() == nil || !(logging(f.Pkg().Path()) || isLoggerMethod(f)) {
							if !c.isLoggerValue(inner) {
								stops = true
							}
						}
					}
					return true
				})
			}
			return false
		}
		if bookkeeping(fn.Pkg().Path()) {
			return false
		}
		stops = true
		return true
	})
	if stops {
		return true, ""
	}
	return false, "OnStoppedLeading only logs"
}

// logging packages: their calls do not stop anything, except the Fatal,
// Panic and Exit families.
func logging(path string) bool {
	switch path {
	case "log", "log/slog", "fmt", "k8s.io/klog", "k8s.io/klog/v2", "github.com/go-logr/logr",
		"go.uber.org/zap", "github.com/sirupsen/logrus", "github.com/rs/zerolog", "github.com/rs/zerolog/log",
		"github.com/hashicorp/go-hclog", "github.com/golang/glog",
		// go-kit: level.Error(logger) returns the logger that writes at
		// that level, whose Log writes the line
		"github.com/go-kit/log", "github.com/go-kit/log/level", "github.com/go-kit/kit/log", "github.com/go-kit/kit/log/level":
		return true
	}
	return false
}

// bookkeeping packages: flags and metrics that do not stop the work.
func bookkeeping(path string) bool {
	return path == "sync/atomic" || strings.HasPrefix(path, "github.com/prometheus/") ||
		path == "time" || path == "strings" || path == "errors"
}

// closure resolves e to a function literal: e itself, or a local variable
// of fd assigned exactly once, with a function literal (run := func(ctx
// context.Context) {...}).
func (c *checker) closure(fd *ast.FuncDecl, e ast.Expr) *ast.FuncLit {
	e = ast.Unparen(e)
	if lit, ok := e.(*ast.FuncLit); ok {
		return lit
	}
	id, ok := e.(*ast.Ident)
	if !ok || fd == nil || fd.Body == nil {
		return nil
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil || v.Pos() < fd.Pos() || v.Pos() >= fd.End() {
		return nil
	}
	var lit *ast.FuncLit
	n := 0
	ast.Inspect(fd.Body, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.AssignStmt:
			for i, l := range node.Lhs {
				if lid, ok := l.(*ast.Ident); ok && (c.info.Defs[lid] == v || c.info.Uses[lid] == v) {
					n++
					if len(node.Rhs) == len(node.Lhs) {
						lit, _ = ast.Unparen(node.Rhs[i]).(*ast.FuncLit)
					}
				}
			}
		case *ast.ValueSpec:
			for i, nm := range node.Names {
				if c.info.Defs[nm] == v {
					n++
					if i < len(node.Values) {
						lit, _ = ast.Unparen(node.Values[i]).(*ast.FuncLit)
					}
				}
			}
		case *ast.UnaryExpr:
			if node.Op == token.AND {
				if uid, ok := node.X.(*ast.Ident); ok && c.info.Uses[uid] == v {
					n += 2 // address taken: may be reassigned
				}
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return lit
}

// isLoggerValue reports whether a call returns a logger (setup.Logger.WithName).
func (c *checker) isLoggerValue(call *ast.CallExpr) bool {
	n := leadership.NamedOf(c.info.TypeOf(call))
	return n != nil && n.Obj().Pkg() != nil && logging(n.Obj().Pkg().Path())
}

func (c *checker) funcOf(e ast.Expr) (*types.Func, bool) {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return nil, false
	}
	fn, ok := c.info.Uses[id].(*types.Func)
	return fn, ok
}

// checkSite checks the start callback of a site against its stop callback.
func (c *checker) checkSite(s *site) {
	var cb *callback
	start := ast.Unparen(s.start)
	if lit := c.closure(s.fd, start); lit != nil {
		start = lit
	}
	switch st := start.(type) {
	case *ast.FuncLit:
		if c.checked[st] {
			return
		}
		c.checked[st] = true
		cb = newCallback(c, st, st.Type, st.Body)
	default:
		fn, ok := c.funcOf(st)
		if !ok {
			return
		}
		d := c.decls[fn]
		if d == nil || d.Body == nil || c.checked[d] {
			return
		}
		c.checked[d] = true
		cb = newCallback(c, d, d.Type, d.Body)
	}
	if s.fd != nil {
		cb.outerName = s.fd.Name.Name
		cb.outer = s.fd
	}
	// stored start callbacks also started elsewhere (latestart.go): a
	// stop callback does not end work started on a context of its own
	c.checkLateStarts(cb)
	stops, why := c.stopsWork(s.fd, s.stop, false)
	if stops || s.stopsAny {
		return // losing the lease stops the process or the work anyway
	}
	var related []analysis.RelatedInformation
	if cb.leader != nil {
		related = append(related, rule.Related(c.leaderIdent(cb), "the leader context, cancelled when this replica loses the lease"))
	}
	if s.ctxOnly {
		related = append(related, rule.Related(s.stopKey, "%s ends leadership only by cancelling the work's context", s.via))
	} else {
		related = append(related, rule.Related(s.stopKey, "%s: nothing stops the work when the lease is lost", why))
	}
	found := c.scan(cb)
	// closures of the enclosing function that the callback calls
	// (run := func(ctx context.Context) {...}; OnStartedLeading: func(ctx
	// context.Context) { run(ctx) }): their bodies are the callback's work
	ast.Inspect(cb.body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		lit := c.closure(s.fd, call.Fun)
		if lit == nil || c.checked[lit] || cb.inScope(lit.Pos()) {
			return true
		}
		c.checked[lit] = true
		sub := newCallback(c, lit, lit.Type, lit.Body)
		sub.outer, sub.outerName = cb.outer, cb.outerName
		if sub.leader != nil {
			idx := paramPos(c.info, lit.Type, sub.leader)
			if idx < 0 || idx >= len(call.Args) {
				return true
			}
			switch v := cb.classify(call.Args[idx]); v.class {
			case unknown:
				return true
			case wrong:
				// report the call only if the closure starts work on it
				if c.startsWorkOn(sub) && !cb.reported[call.Pos()] {
					cb.reported[call.Pos()] = true
					found = append(found, finding{call, v})
				}
				return true
			}
		}
		found = append(found, c.scan(sub)...)
		return true
	})
	sort.Slice(found, func(i, j int) bool { return found[i].call.Pos() < found[j].call.Pos() })
	leaderName := "its ctx parameter"
	if cb.leader != nil {
		leaderName = cb.leader.Name()
	}
	for _, f := range found {
		c.p.Reportf(f.call, related,
			"leader callback starts %s with %s, not the leader context %s: when this replica loses the lease the work keeps running beside the new leader, so on N replicas two leaders act at once; pass the callback's %s (or a context derived from it), or use the elector package whose work context ends with the lease",
			calleeName(f.call), f.arg.why, leaderName, leaderName)
	}
}

type finding struct {
	call *ast.CallExpr
	arg  verdict
}

// scan finds, in a callback body, the work started with a context that is
// not the leader's.
func (c *checker) scan(cb *callback) []finding {
	var found []finding
	ast.Inspect(cb.body, func(n ast.Node) bool {
		var call *ast.CallExpr
		inGo := false
		switch n := n.(type) {
		case *ast.GoStmt:
			call, inGo = n.Call, true
		case *ast.CallExpr:
			call = n
		default:
			return true
		}
		if cb.reported[call.Pos()] {
			return true
		}
		if !c.isWork(call, inGo) {
			return true
		}
		for _, a := range call.Args {
			t := c.info.TypeOf(a)
			if !isContext(t) && !isStopChan(t) {
				continue
			}
			if v := cb.classify(a); v.class == wrong {
				cb.reported[call.Pos()] = true
				found = append(found, finding{call, v})
				break
			}
		}
		return true
	})
	return found
}

// startsWorkOn reports whether a callback starts work on its own context.
func (c *checker) startsWorkOn(cb *callback) bool {
	starts := false
	ast.Inspect(cb.body, func(n ast.Node) bool {
		var call *ast.CallExpr
		inGo := false
		switch n := n.(type) {
		case *ast.GoStmt:
			call, inGo = n.Call, true
		case *ast.CallExpr:
			call = n
		default:
			return !starts
		}
		if c.isWork(call, inGo) {
			for _, a := range call.Args {
				if t := c.info.TypeOf(a); (isContext(t) || isStopChan(t)) && cb.classify(a).class == bound {
					starts = true
				}
			}
		}
		return !starts
	})
	return starts
}

// paramPos returns the index of parameter v in a function type, or -1.
func paramPos(info *types.Info, ft *ast.FuncType, v *types.Var) int {
	i := 0
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, n := range f.Names {
			if info.Defs[n] == v {
				return i
			}
			i++
		}
	}
	return -1
}

func (c *checker) leaderIdent(cb *callback) ast.Node {
	for id, obj := range c.info.Defs {
		if obj == cb.leader {
			return id
		}
	}
	return cb.scope
}

func calleeName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
		return f.Sel.Name
	case *ast.FuncLit:
		return "a goroutine"
	}
	return "work"
}
