package leasetiming

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE4002.
var Analyzer = rule.New(rule.Spec{
	ID:       "LE4002",
	Run:      run,
	Requires: []*analysis.Analyzer{effects.Analyzer},
})

// etcd's lease limits: the server raises a TTL below its minimum,
// ceil(1.5 x election timeout) = 2 s with the default 1000 ms election
// timeout, and rejects one above MaxLeaseTTL.
const (
	etcdMinTTL     = 2
	etcdMaxLeaseTT = 9000000000
	etcdDefaultTTL = 60
)

// redsync's defaults: expiry 8 s, 32 tries, a delay drawn from
// [50 ms, 250 ms); the minimum delay is used so the budget is never
// overestimated.
const (
	redsyncExpiry   = 8 * time.Second
	redsyncTries    = 32
	redsyncMinDelay = 50 * time.Millisecond
)

type checker struct {
	overridden []*ast.FuncDecl // functions that assign a timing field after building it
	p          *rule.Pass
	info       *types.Info
	consts     *leadership.Consts
}

func run(p *rule.Pass) error {
	c := &checker{p: p, info: p.TypesInfo, consts: leadership.NewConsts(p.TypesInfo, p.Pkg, p.Pass.Files)}
	// a project's own lease needs no known library import
	if eff, _ := p.Pass.ResultOf[effects.Analyzer].(*effects.Result); eff != nil && c.mayRenewProjectLease() {
		c.projectLeases(eff.SSAFuncs())
	}
	if !p.ImportsKnown() {
		return nil
	}
	for _, f := range p.Files() {
		c.overridden = nil
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && c.assignsTiming(fd.Body) {
				c.overridden = append(c.overridden, fd)
			}
		}
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			var parent ast.Node
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.CompositeLit:
				if c.isOverridden(n) {
					return true // a field is set again after the literal: unknown
				}
				c.clientGo(n)
				c.consulTTL(n)
				c.electorTiming(n, parent)
			case *ast.CallExpr:
				fn := leadership.Callee(c.info, n)
				if fn == nil {
					return true
				}
				if a := leadership.Kind(p.KB, fn, "session-ttl"); a != nil {
					c.etcdTTL(n, a.Args["ttl"])
				}
				if a := leadership.Kind(p.KB, fn, "lock-options"); a != nil {
					c.redsync(n, a.Args["opts"])
				}
			}
			return true
		})
	}
	return nil
}

func fmtDur(ns int64) string { return time.Duration(ns).String() }

// fields returns the constant value of each keyed field of lit whose KB kind
// is one of kinds, by kind, and the key-value nodes.
func (c *checker) fields(lit *ast.CompositeLit, kinds ...string) (map[string]int64, map[string]ast.Node, bool) {
	t := c.info.TypeOf(lit)
	vals := map[string]int64{}
	nodes := map[string]ast.Node{}
	allConst := true
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		a := leadership.FieldOf(c.p.KB, t, key.Name, kinds...)
		if a == nil {
			continue
		}
		nodes[a.Kind] = kv
		v, ok := c.consts.Int64(kv.Value)
		if !ok {
			allConst = false
			continue
		}
		vals[a.Kind] = v
	}
	return vals, nodes, allConst
}

// clientGo checks a client-go LeaderElectionConfig literal against
// NewLeaderElector's validation, when all three durations are set and
// constant.
func (c *checker) clientGo(lit *ast.CompositeLit) {
	vals, nodes, allConst := c.fields(lit, "timing-lease", "timing-renew", "timing-retry")
	if !allConst || len(vals) == 0 {
		return
	}
	// fields left out take the library's default when it has one
	// (controller-runtime), which also needs leader election turned on
	t := c.info.TypeOf(lit)
	n := leadership.NamedOf(t)
	if n == nil || n.Obj().Pkg() == nil {
		return
	}
	if c.hasEnableField(n) && !c.setsField(lit, "timing-enable") {
		return // leader election off: the timing is unused
	}
	defaulted := map[string]bool{}
	for _, kind := range []string{"timing-lease", "timing-renew", "timing-retry"} {
		if _, ok := vals[kind]; ok {
			continue
		}
		var def int64 = -1
		for _, a := range c.p.KB.Coordinators {
			if a.Kind == kind && a.Pkg == n.Obj().Pkg().Path() && a.Recv == n.Obj().Name() {
				if ms, ok := a.Args["default_ms"]; ok {
					def = int64(ms) * int64(time.Millisecond)
				}
			}
		}
		if def < 0 {
			return // unset and no default: judged elsewhere, or filled in later
		}
		vals[kind] = def
		defaulted[kind] = true
	}
	for _, kind := range []string{"timing-lease", "timing-renew", "timing-retry"} {
		if nodes[kind] == nil {
			nodes[kind] = lit // the default of a field left out
		}
	}

	lease, renew, retry := vals["timing-lease"], vals["timing-renew"], vals["timing-retry"]
	jitter := c.jitter()
	label := func(kind, name string, v int64) analysis.RelatedInformation {
		if defaulted[kind] {
			return rule.Related(nodes[kind], "%s %s (the default: the field is not set)", name, fmtDur(v))
		}
		return rule.Related(nodes[kind], "%s %s", name, fmtDur(v))
	}
	related := []analysis.RelatedInformation{
		label("timing-lease", "LeaseDuration", lease),
		label("timing-renew", "RenewDeadline", renew),
		label("timing-retry", "RetryPeriod", retry),
	}
	at := func(kind, fallback string) ast.Node {
		if defaulted[kind] {
			return nodes[fallback]
		}
		return nodes[kind]
	}
	for _, k := range []struct {
		kind, name string
		v          int64
	}{{"timing-lease", "LeaseDuration", lease}, {"timing-renew", "RenewDeadline", renew}, {"timing-retry", "RetryPeriod", retry}} {
		if !defaulted[k.kind] && c.unitless(k.v) {
			c.p.Reportf(nodes[k.kind], related, "%s", unitlessMsg(k.name, k.v))
			return
		}
	}
	switch {
	case lease <= renew:
		c.p.Reportf(at("timing-lease", "timing-renew"), related,
			"LeaseDuration %s is not longer than RenewDeadline %s: client-go's NewLeaderElector rejects this, so leader election cannot start on any replica (RunOrDie panics, a manager fails to start), and were it accepted a leader still retrying its renewal would hold a lease that standbys already consider expired, so two replicas would lead at once; keep LeaseDuration > RenewDeadline (client-go defaults: 15s/10s/2s)",
			fmtDur(lease), fmtDur(renew))
	case renew <= int64(time.Duration(jitter*float64(retry))):
		c.p.Reportf(at("timing-renew", "timing-retry"), related,
			"RenewDeadline %s is not longer than %.1f x RetryPeriod %s (= %s): client-go's NewLeaderElector rejects this, so leader election cannot start on any replica (RunOrDie panics, a manager fails to start), because a single jittered retry could outlast the deadline and the leader would give up after one failed renewal; keep RenewDeadline > JitterFactor x RetryPeriod (client-go defaults: 15s/10s/2s)",
			fmtDur(renew), jitter, fmtDur(retry), time.Duration(jitter*float64(retry)))
	case retry < 1:
		c.p.Reportf(nodes["timing-retry"], related,
			"RetryPeriod %s is not positive: client-go's NewLeaderElector rejects it, so leader election cannot start on any replica; use a positive period (default 2s)", fmtDur(retry))
	}
}

// jitter returns client-go's JitterFactor, read from the imported package
// (the KB entry of kind timing-jitter names it), or 1.2.
func (c *checker) jitter() float64 {
	for _, a := range c.p.KB.Coordinators {
		if a.Kind != "timing-jitter" {
			continue
		}
		for _, imp := range c.p.Pkg.Imports() {
			if imp.Path() != a.Pkg {
				continue
			}
			if k, ok := imp.Scope().Lookup(a.Name).(*types.Const); ok && k.Val() != nil {
				if f, exact := constant.Float64Val(constant.ToFloat(k.Val())); exact || f != 0 {
					return f
				}
			}
		}
	}
	return 1.2
}

// etcdTTL checks concurrency.WithTTL(n).
func (c *checker) etcdTTL(call *ast.CallExpr, idx int) {
	if idx >= len(call.Args) {
		return
	}
	n, ok := c.consts.Int64(call.Args[idx])
	if !ok {
		return
	}
	switch {
	case n <= 0:
		c.p.Reportf(call, nil,
			"WithTTL(%d) is ignored by etcd's concurrency package: the session keeps the default %d s TTL, so a crashed leader is only replaced after a minute while the other replicas wait; pass a positive TTL in seconds (for example 10), or use the elector package",
			n, etcdDefaultTTL)
	case n < etcdMinTTL:
		c.p.Reportf(call, nil,
			"WithTTL(%d): etcd raises a lease TTL below its minimum (ceil(1.5 x election timeout) = %d s with the default 1000 ms election timeout), so the session lives longer than the code assumes and the failover timing it was written for does not hold; use a TTL of at least %d s (typically 10-60)",
			n, etcdMinTTL, etcdMinTTL)
	case n > etcdMaxLeaseTT:
		c.p.Reportf(call, nil,
			"WithTTL(%d): the TTL is in seconds and etcd rejects leases above %d s (ErrLeaseTTLTooLarge), so NewSession fails on every replica; a time.Duration was probably passed where seconds are expected: use int(d.Seconds())",
			n, int64(etcdMaxLeaseTT))
	}
}

// redsync checks a NewMutex call's options: the expiry must outlast the
// time a waiter may spend retrying (tries x delay).
func (c *checker) redsync(call *ast.CallExpr, from int) {
	if call.Ellipsis.IsValid() {
		return // options spread from a slice: unknown
	}
	expiry, tries, delay := int64(redsyncExpiry), int64(redsyncTries), int64(redsyncMinDelay)
	var expiryCall, triesCall, delayCall *ast.CallExpr
	for i := from; i < len(call.Args); i++ {
		opt, ok := ast.Unparen(call.Args[i]).(*ast.CallExpr)
		if !ok {
			return // an option from a variable: unknown
		}
		fn := leadership.Callee(c.info, opt)
		if fn == nil {
			return
		}
		a := leadership.Kind(c.p.KB, fn, "lock-expiry", "lock-tries", "lock-retry-delay", "lock-retry-func")
		if a == nil {
			if fn.Pkg() == nil || fn.Pkg() != leadershipPkgOf(c.info, call) {
				return // a wrapper option: unknown
			}
			continue // another option of the library (WithValue, WithDriftFactor...)
		}
		if a.Kind == "lock-retry-func" {
			return
		}
		vi := a.Args["value"]
		if vi >= len(opt.Args) {
			return
		}
		v, ok := c.consts.Int64(opt.Args[vi])
		if !ok {
			return
		}
		switch a.Kind {
		case "lock-expiry":
			expiry, expiryCall = v, opt
		case "lock-tries":
			tries, triesCall = v, opt
		case "lock-retry-delay":
			delay, delayCall = v, opt
		}
	}
	if expiryCall == nil && triesCall == nil && delayCall == nil {
		return
	}
	if expiryCall != nil && c.unitless(expiry) {
		c.p.Reportf(expiryCall, nil, "%s", unitlessMsg("redsync WithExpiry", expiry))
		return
	}
	budget := tries * delay
	if tries <= 0 || delay <= 0 || expiry >= budget {
		return
	}
	at := expiryCall
	if at == nil {
		if triesCall != nil {
			at = triesCall
		} else {
			at = delayCall
		}
	}
	var related []analysis.RelatedInformation
	for _, o := range []*ast.CallExpr{expiryCall, triesCall, delayCall} {
		if o != nil && o != at {
			related = append(related, rule.Related(o, "part of the timing"))
		}
	}
	delayNote := ""
	if delayCall == nil {
		delayNote = " (the default delay is random in [50ms, 250ms); its minimum is used)"
	}
	expiryNote := ""
	if expiryCall == nil {
		expiryNote = " (the default)"
	}
	c.p.Reportf(at, related,
		"redsync mutex expiry %s%s is shorter than its own retry budget, %d tries x %s%s = %s: a replica waiting for the lock keeps retrying after the holder's key has expired, so it can acquire while the holder is still working and two replicas run the work at once; make the expiry longer than tries x delay (and extend the lock while working), or use the elector package",
		fmtDur(expiry), expiryNote, tries, fmtDur(delay), delayNote, fmtDur(budget))
}

func leadershipPkgOf(info *types.Info, call *ast.CallExpr) *types.Package {
	if fn := leadership.Callee(info, call); fn != nil {
		return fn.Pkg()
	}
	return nil
}

// elector timing field names (github.com/gatesift/gatesift-vet/elector.Timing).
var electorFields = []string{"LeaseDuration", "RenewInterval", "RetryInterval", "DriftBound", "StopBudget"}

// electorTiming checks an elector.Timing literal with the rules of
// Timing.Validate, when every field is constant. A literal that leaves
// fields out is judged only when passed straight to a call (WithTiming):
// its missing fields are then zero.
func (c *checker) electorTiming(lit *ast.CompositeLit, parent ast.Node) {
	t := c.info.TypeOf(lit)
	if leadership.TypeKind(c.p.KB, t, "elector-timing") == nil {
		return
	}
	vals := map[string]int64{}
	nodes := map[string]ast.Node{}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			return
		}
		v, ok := c.consts.Int64(kv.Value)
		if !ok {
			return
		}
		vals[key.Name] = v
		nodes[key.Name] = kv
	}
	if len(vals) < len(electorFields) {
		if _, isCall := parent.(*ast.CallExpr); !isCall {
			return
		}
	}
	at := func(field string) ast.Node {
		if n, ok := nodes[field]; ok {
			return n
		}
		return lit
	}
	for _, f := range []string{"LeaseDuration", "RenewInterval", "RetryInterval"} {
		if v, ok := vals[f]; ok && c.unitless(v) {
			c.p.Reportf(at(f), nil, "%s", unitlessMsg("elector.Timing."+f, v))
			return
		}
	}
	tm := timing{vals["LeaseDuration"], vals["RenewInterval"], vals["RetryInterval"], vals["DriftBound"], vals["StopBudget"]}
	for _, pr := range tm.problems() {
		c.p.Reportf(at(pr.field), nil,
			"elector.Timing %s: elector.New rejects it (Validate) on every replica; %s", tm, pr.msg)
	}
}

// Consul accepts session TTLs between 10s and 24h (session_ttl_min and the
// API's maximum): a lock or session created with another TTL fails on every
// replica.
const (
	consulMinTTL = 10 * time.Second
	consulMaxTTL = 24 * time.Hour
)

// consulTTL checks a constant Consul session TTL string field.
func (c *checker) consulTTL(lit *ast.CompositeLit) {
	t := c.info.TypeOf(lit)
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok || leadership.FieldOf(c.p.KB, t, key.Name, "session-ttl-string") == nil {
			continue
		}
		v := c.consts.Value(kv.Value)
		if v == nil || v.Kind() != constant.String {
			continue
		}
		str := constant.StringVal(v)
		if str == "" {
			continue // the library's default (15s)
		}
		d, err := time.ParseDuration(str)
		if err != nil {
			c.p.Reportf(kv, nil,
				"Consul session TTL %q is not a duration: the session cannot be created, so no replica ever holds the lock; use a duration string such as \"15s\"", str)
			continue
		}
		if d < consulMinTTL || d > consulMaxTTL {
			c.p.Reportf(kv, nil,
				"Consul session TTL %s is outside what the server accepts (%s to %s): creating the session fails on every replica, so the lock or election never starts; use a TTL in that range (the lock default is 15s)",
				d, consulMinTTL, consulMaxTTL)
		}
	}
}

// assignsTiming reports whether body assigns a timing field (cfg.RenewDeadline
// = ..., t.RenewInterval = ...): a literal built there may not be final.
func (c *checker) assignsTiming(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found {
			return !found
		}
		for _, l := range as.Lhs {
			sel, ok := l.(*ast.SelectorExpr)
			if !ok {
				continue
			}
			xt := c.info.TypeOf(sel.X)
			if leadership.FieldOf(c.p.KB, xt, sel.Sel.Name, "timing-lease", "timing-renew", "timing-retry", "session-ttl-string") != nil ||
				leadership.TypeKind(c.p.KB, xt, "elector-timing") != nil {
				found = true
			}
		}
		return true
	})
	return found
}

func (c *checker) isOverridden(n ast.Node) bool {
	for _, fd := range c.overridden {
		if fd.Pos() <= n.Pos() && n.End() <= fd.End() {
			return true
		}
	}
	return false
}

// hasEnableField reports whether the type has a field of kind timing-enable.
func (c *checker) hasEnableField(n *types.Named) bool {
	for _, a := range c.p.KB.Coordinators {
		if a.Kind == "timing-enable" && a.Pkg == n.Obj().Pkg().Path() && a.Recv == n.Obj().Name() {
			return true
		}
	}
	return false
}

// setsField reports whether lit sets a field of the given kind to anything
// but the constant false.
func (c *checker) setsField(lit *ast.CompositeLit, kind string) bool {
	t := c.info.TypeOf(lit)
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok || leadership.FieldOf(c.p.KB, t, key.Name, kind) == nil {
			continue
		}
		if v := c.consts.Value(kv.Value); v != nil && v.Kind() == constant.Bool && !constant.BoolVal(v) {
			return false
		}
		return true
	}
	return false
}

// unitless reports a positive duration below a millisecond: a bare number
// written where a time.Duration is expected is nanoseconds.
func (c *checker) unitless(ns int64) bool { return ns > 0 && ns < int64(time.Millisecond) }

func unitlessMsg(name string, ns int64) string {
	return fmt.Sprintf("%s is %s: a number without a unit is nanoseconds as a time.Duration, so the lease expires before any request completes and leadership flaps on every replica (or none holds it); write the unit, e.g. %d * time.Second",
		name, time.Duration(ns), ns)
}
