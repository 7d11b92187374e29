package leadershiploss

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// A renewal bounded by the expiry it asks for. A holder renews in a paced
// loop, and its work runs on a context that is cancelled when a renewal
// fails. Each renewal call is bounded by a context whose deadline is
// time.Now().Add(ttl), the NEW expiry the call asks the store for, or by
// context.WithTimeout(ctx, ttl) with the TTL the call asks for. The lease
// in the store still ends at its CURRENT expiry (the previous success plus
// the TTL), one renew interval sooner. When the store stops answering, the
// call waits (or its client retries) until that later deadline, so from
// the current expiry until the call gives up another process holds the
// key while this one's work context is still live: two holders.
//
// The store is read from the call itself, not from its API's name: the
// renewal is given the new expiry (the deadline or its Unix form, or the
// TTL) as data, and it is a renewal known to the knowledge base (an
// EXPIRE-like command, a row renewal of the effects package) or it carries
// a constant text that moves an expiry (a script or command naming EXPIRE,
// PEXPIRE, EXPIREAT or PEXPIREAT, an UPDATE that sets an expiry-like
// column), traced through parameters, package variables and the
// constructor calls that hold them.
//
// Silent when the deadline is not computed afresh from time.Now() for that
// call (a deadline saved from the previous success), when a timeout is not
// the TTL the call asks for, when nothing cancels anything once the loop
// is left (the failure is another check's), and when a time.AfterFunc
// that cancels runs beside the renewer and is re-armed (Reset) or never
// stopped: it ends the work at the current expiry whatever the renewal
// does.

// renewExpiryText: a constant text that moves an expiry.
var renewExpiryText = regexp.MustCompile(`(?i)\bp?expire(at)?\b|\bupdate\b[\s\S]*\bset\b[\s\S]*(expir|until|lease|deadline|valid)`)

// deadlineIndex is what the check needs of the package's SSA form.
type deadlineIndex struct {
	funcs   []*ssa.Function
	callers map[*ssa.Function][]*ssa.Call // static call sites in the package
	globals map[*ssa.Global][]ssa.Value   // values stored to package variables
	calls   map[token.Pos]*ast.CallExpr   // the package's call expressions by Lparen
	// bindings: the value a function literal's free variable is bound to,
	// when one closure of it is made
	bindings map[*ssa.FreeVar]ssa.Value
}

// checkRenewDeadlines reports renewals bounded by the expiry they ask for;
// index builds (once) the package's SSA index it shares with
// checkUnboundedRenewals.
func (c *checker) checkRenewDeadlines(eff *effects.Result, files []*ast.File, index func() *deadlineIndex) {
	if eff == nil {
		return
	}
	// a bounded renewal needs a bound, a paced loop and a store that may
	// move an expiry: a store of the knowledge base or a text that says so
	bounds := c.callsAny(files, "context", "WithDeadline", "WithTimeout") &&
		c.callsAny(files, "time", "Sleep", "NewTicker", "NewTimer", "After", "Tick") &&
		(c.p.ImportsKnown() || expiryText(files))
	// a validity read after the reply (validafter.go): only where a store
	// of the knowledge base is in sight, (time.Time).Add being everywhere
	valid := c.p.ImportsKnown() && c.callsAny(files, "time", "Now") && c.mayReadValidity()
	if !bounds && !valid {
		return
	}
	ix := index()
	if valid {
		c.checkValidAfterReply(ix, eff)
	}
	if !bounds {
		return
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(*ssa.Call); ok {
					c.boundedRenewal(ix, eff, call)
				}
			}
		}
	}
}

// newDeadlineIndex indexes the package's SSA functions, static call sites,
// package-variable stores, call expressions and closure bindings.
func newDeadlineIndex(eff *effects.Result, files []*ast.File) *deadlineIndex {
	ix := &deadlineIndex{funcs: eff.SSAFuncs(), callers: map[*ssa.Function][]*ssa.Call{}, globals: map[*ssa.Global][]ssa.Value{}, calls: map[token.Pos]*ast.CallExpr{}, bindings: map[*ssa.FreeVar]ssa.Value{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				ix.calls[call.Lparen] = call
			}
			return true
		})
	}
	for _, fn := range ix.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Call:
					if g := in.Common().StaticCallee(); g != nil {
						ix.callers[g] = append(ix.callers[g], in)
					}
				case *ssa.MakeClosure:
					if lit, ok := in.Fn.(*ssa.Function); ok && len(lit.FreeVars) == len(in.Bindings) {
						for i, fv := range lit.FreeVars {
							ix.bindings[fv] = in.Bindings[i]
						}
					}
				case *ssa.Store:
					if g, ok := in.Addr.(*ssa.Global); ok {
						ix.globals[g] = append(ix.globals[g], in.Val)
					}
				}
			}
		}
	}
	return ix
}

// boundedRenewal checks one call given a bounded context.
func (c *checker) boundedRenewal(ix *deadlineIndex, eff *effects.Result, store *ssa.Call) {
	cc := store.Common()
	if f := funcOf(cc); f != nil && f.Pkg() != nil && (f.Pkg().Path() == "context" || f.Pkg().Path() == "time") {
		return
	}
	ctxAt := -1
	for i, a := range cc.Args {
		if isContext(a.Type()) {
			ctxAt = i
			break
		}
	}
	if ctxAt < 0 {
		return
	}
	bound := boundOf(cc.Args[ctxAt], 0)
	if bound == nil {
		return
	}
	fn := store.Parent()
	limit := bound.Common().Args[1]
	if funcOf(bound.Common()).Name() == "WithTimeout" {
		// the timeout is the TTL the call asks for
		asks := func(v ssa.Value, _ *ssa.Call) bool { return sameSource(v, limit) }
		if c.renewalEvidence(ix, eff, store, nil, asks) {
			c.reportLocal(ix, store, bound, limit, "is given a timeout equal to the TTL it asks for")
			return
		}
		// or constants: a timeout not below the TTL less the renew interval
		timeout, ok := constDuration(limit)
		if !ok {
			return
		}
		for _, a := range store.Call.Args {
			ttl, ok := constDuration(a)
			if !ok || !c.renewalEvidence(ix, eff, store, nil, func(v ssa.Value, _ *ssa.Call) bool { return v == a }) {
				continue
			}
			if _, every := pacing(store); every > 0 && timeout >= ttl-every {
				c.reportRenewDeadline(ix, store, store, bound, limit, fmt.Sprintf("is given a timeout of %v, not below its TTL %v less the renew interval %v", timeout, ttl, every))
			}
			return
		}
		return
	}
	if p, ok := limit.(*ssa.Parameter); ok {
		// the helper's deadline parameter: judged at each call site that
		// passes time.Now().Add(ttl)
		at := paramIndex(fn, p)
		if at < 0 {
			return
		}
		for _, site := range ix.callers[fn] {
			if at >= len(site.Call.Args) || nowAdd(site.Call.Args[at]) == nil {
				continue
			}
			asks := func(v ssa.Value, _ *ssa.Call) bool { return v == p }
			if c.renewalEvidence(ix, eff, store, site, asks) {
				c.reportRenewDeadline(ix, site, store, bound, site.Call.Args[at], "is bounded by the new expiry it asks for")
			}
		}
		return
	}
	add := nowAdd(limit)
	if add == nil {
		return // a deadline saved from the previous success, or unknown
	}
	ttl := add.Call.Args[1]
	asks := func(v ssa.Value, _ *ssa.Call) bool { return v == limit || sameSource(v, limit) || sameSource(v, ttl) }
	if c.renewalEvidence(ix, eff, store, nil, asks) {
		c.reportLocal(ix, store, bound, limit, "is bounded by the new expiry it asks for")
	}
}

// renewalEvidence: the store call asks for the new expiry (asks holds for
// one of its data arguments) and moves an expiry: a renewal of the
// knowledge base or of the effects package, or a constant text that moves
// one. site, when not nil, is the call of store's function whose arguments
// stand for its parameters.
func (c *checker) renewalEvidence(ix *deadlineIndex, eff *effects.Result, store, site *ssa.Call, asks func(ssa.Value, *ssa.Call) bool) bool {
	cc := store.Common()
	asked := false
	for _, a := range cc.Args {
		if !isContext(a.Type()) && touches(a, func(v ssa.Value) bool { return asks(v, site) }, 0) {
			asked = true
		}
	}
	if !asked {
		return false
	}
	if call := ix.calls[cc.Pos()]; call != nil {
		if op := lockfacts.Classify(c.info, c.p.KB, call); op != nil && op.Kind == lockfacts.Expire {
			return true
		}
		if eff.Renewal(call) != nil {
			return true
		}
	}
	vals := append([]ssa.Value{}, cc.Args...)
	if !cc.IsInvoke() {
		if _, ok := cc.Value.(*ssa.Function); !ok {
			vals = append(vals, cc.Value)
		}
	} else {
		vals = append(vals, cc.Value)
	}
	for _, v := range vals {
		if ix.movesExpiry(v, site, 0) {
			return true
		}
	}
	return false
}

// movesExpiry: v holds a constant text that moves an expiry, through
// conversions, slices, calls (a script's constructor), package variables
// and, at site, the parameters of the function site calls.
func (ix *deadlineIndex) movesExpiry(v ssa.Value, site *ssa.Call, depth int) bool {
	if depth > 6 || v == nil {
		return false
	}
	switch v := v.(type) {
	case *ssa.Const:
		return v.Value != nil && v.Value.Kind() == constant.String && renewExpiryText.MatchString(constant.StringVal(v.Value))
	case *ssa.Parameter:
		if site == nil || site.Common().StaticCallee() != v.Parent() {
			return false
		}
		if i := paramIndex(v.Parent(), v); i >= 0 && i < len(site.Call.Args) {
			return ix.movesExpiry(site.Call.Args[i], nil, depth+1)
		}
	case *ssa.UnOp:
		if g, ok := v.X.(*ssa.Global); ok && v.Op == token.MUL {
			for _, s := range ix.globals[g] {
				if ix.movesExpiry(s, nil, depth+1) {
					return true
				}
			}
			return false
		}
		return ix.movesExpiry(v.X, site, depth+1)
	case *ssa.Call:
		for _, a := range v.Call.Args {
			if ix.movesExpiry(a, site, depth+1) {
				return true
			}
		}
	case *ssa.MakeInterface:
		return ix.movesExpiry(v.X, site, depth+1)
	case *ssa.ChangeType:
		return ix.movesExpiry(v.X, site, depth+1)
	case *ssa.Convert:
		return ix.movesExpiry(v.X, site, depth+1)
	case *ssa.Slice:
		return ix.movesExpiry(v.X, site, depth+1)
	case *ssa.Alloc:
		for _, s := range storedInto(v) {
			if ix.movesExpiry(s, site, depth+1) {
				return true
			}
		}
	}
	return false
}

// storedInto returns the values stored to the elements of an array
// allocation (the backing array of a slice literal).
func storedInto(a *ssa.Alloc) []ssa.Value {
	var out []ssa.Value
	for _, r := range *a.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		for _, rr := range *ia.Referrers() {
			if s, ok := rr.(*ssa.Store); ok && s.Addr == ia {
				out = append(out, s.Val)
			}
		}
	}
	return out
}

// touches: pred holds for v or for a value v is computed from (a method
// of it, a conversion, arithmetic, a formatting call, the elements of a
// slice literal).
func touches(v ssa.Value, pred func(ssa.Value) bool, depth int) bool {
	if depth > 6 || v == nil {
		return false
	}
	if pred(v) {
		return true
	}
	switch v := v.(type) {
	case *ssa.Call:
		if v.Call.IsInvoke() {
			return false
		}
		for _, a := range v.Call.Args {
			if touches(a, pred, depth+1) {
				return true
			}
		}
	case *ssa.MakeInterface:
		return touches(v.X, pred, depth+1)
	case *ssa.ChangeType:
		return touches(v.X, pred, depth+1)
	case *ssa.Convert:
		return touches(v.X, pred, depth+1)
	case *ssa.BinOp:
		return touches(v.X, pred, depth+1) || touches(v.Y, pred, depth+1)
	case *ssa.Slice:
		return touches(v.X, pred, depth+1)
	case *ssa.Alloc:
		for _, s := range storedInto(v) {
			if touches(s, pred, depth+1) {
				return true
			}
		}
	}
	return false
}

// reportLocal reports a store call whose bound is its own function's: at
// the call when it runs in a paced loop, else at each call of its function
// (a helper that renews once) that does.
func (c *checker) reportLocal(ix *deadlineIndex, store, bound *ssa.Call, limit ssa.Value, how string) {
	if paced, _ := pacing(store); paced {
		c.reportRenewDeadline(ix, store, store, bound, limit, how)
		return
	}
	for _, site := range ix.callers[store.Parent()] {
		c.reportRenewDeadline(ix, site, store, bound, limit, how)
	}
}

// reportRenewDeadline reports at site (the renewal in the loop, or the
// store call itself) when site runs in a paced loop, something is
// cancelled once the loop is left, and no timer ends the work at the
// current expiry.
func (c *checker) reportRenewDeadline(ix *deadlineIndex, site, store, bound *ssa.Call, limit ssa.Value, how string) {
	at := ix.calls[site.Pos()]
	if at == nil || c.checked[at] {
		return
	}
	if paced, _ := pacing(site); !paced {
		return
	}
	cancel := cancelAfter(site, bound)
	if cancel == nil {
		return
	}
	for fn := site.Parent(); fn != nil; fn = fn.Parent() {
		if expiryWatchdog(ix, fn) {
			return
		}
	}
	c.checked[at] = true
	related := []analysis.RelatedInformation{}
	if n := ix.calls[bound.Pos()]; n != nil {
		related = append(related, rule.Related(n, "the renewal's context is bounded here"))
	}
	if lc, ok := limit.(*ssa.Call); ok {
		if n := ix.calls[lc.Pos()]; n != nil {
			related = append(related, rule.Related(n, "the bound: now plus the full TTL, the expiry asked for, not the current one"))
		}
	}
	if store != site {
		if n := ix.calls[store.Pos()]; n != nil {
			related = append(related, rule.Related(n, "the store call that moves the expiry"))
		}
	}
	if n := ix.calls[cancel.Pos()]; n != nil {
		related = append(related, rule.Related(n, "the work's context is cancelled only here, after the renewal has given up"))
	}
	c.p.Reportf(at, related,
		"this renewal %s, which ends after the lease's current expiry (the previous success plus the TTL): when the store stops answering, the call waits until that later deadline, so after the key expires and another process acquires it this holder's work context is still live for up to one renew interval, and two holders work at once; bound the renewal by the deadline saved from the previous success, or arm a timer at the current expiry that cancels the work",
		how)
}

// storageKey names where an address points: a local variable (the Alloc),
// a struct field (the *types.Var) or a package variable.
func storageKey(addr ssa.Value) any {
	switch a := addr.(type) {
	case *ssa.Alloc, *ssa.Global:
		return a
	case *ssa.FieldAddr:
		if p, ok := a.X.Type().Underlying().(*types.Pointer); ok {
			if s, ok := p.Elem().Underlying().(*types.Struct); ok {
				return s.Field(a.Field)
			}
		}
	}
	return nil
}

// boundOf returns the context.WithDeadline or context.WithTimeout call
// whose context v is (on some path: a context bounded only when the
// caller's deadline is later is still bounded by it).
func boundOf(v ssa.Value, depth int) *ssa.Call {
	if depth > 4 {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Phi:
		for _, e := range v.Edges {
			if b := boundOf(e, depth+1); b != nil {
				return b
			}
		}
	case *ssa.Extract:
		call, ok := v.Tuple.(*ssa.Call)
		if !ok || v.Index != 0 {
			return nil
		}
		f := funcOf(call.Common())
		if f != nil && f.Pkg() != nil && f.Pkg().Path() == "context" && (f.Name() == "WithDeadline" || f.Name() == "WithTimeout") && len(call.Call.Args) == 2 {
			return call
		}
	}
	return nil
}

// nowAdd returns v when it is time.Now().Add(d), computed right there (not
// carried over from an earlier round through a phi), or a load of a
// variable that the same block last set to one.
func nowAdd(v ssa.Value) *ssa.Call {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		var last ssa.Value
		for _, in := range u.Block().Instrs {
			if in == u {
				break
			}
			if st, ok := in.(*ssa.Store); ok && st.Addr == u.X {
				last = st.Val
			}
		}
		if last == nil {
			return nil
		}
		v = last
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	f := funcOf(call.Common())
	if f == nil || f.Pkg() == nil || f.Pkg().Path() != "time" || f.Name() != "Add" || len(call.Call.Args) != 2 {
		return nil
	}
	now, ok := call.Call.Args[0].(*ssa.Call)
	if !ok {
		return nil
	}
	if g := funcOf(now.Common()); g != nil && g.Pkg() != nil && g.Pkg().Path() == "time" && g.Name() == "Now" {
		return call
	}
	return nil
}

// sameSource: a and b are the same duration or time: the same value, equal
// constants, loads of the same field or package variable, up to
// conversions and the unit methods and divisions that turn a duration
// into a count (ttl.Milliseconds(), ttl/time.Second).
func sameSource(a, b ssa.Value) bool {
	if a == nil || b == nil {
		return false
	}
	a, b = durationBase(a), durationBase(b)
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *ssa.Const:
		y, ok := b.(*ssa.Const)
		return ok && x.Value != nil && y.Value != nil && constant.Compare(x.Value, token.EQL, y.Value) && types.Identical(x.Type(), y.Type())
	case *ssa.UnOp:
		y, ok := b.(*ssa.UnOp)
		if !ok || x.Op != token.MUL || y.Op != token.MUL {
			return false
		}
		kx, ky := storageKey(x.X), storageKey(y.X)
		if _, local := kx.(*ssa.Alloc); local {
			return false
		}
		return kx != nil && kx == ky
	}
	return false
}

func durationBase(v ssa.Value) ssa.Value {
	for range 4 {
		switch x := v.(type) {
		case *ssa.Convert:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		case *ssa.BinOp:
			if _, ok := x.Y.(*ssa.Const); ok && (x.Op == token.QUO || x.Op == token.MUL) {
				v = x.X
				continue
			}
			return v
		case *ssa.Call:
			f := funcOf(x.Common())
			if f == nil || f.Pkg() == nil || f.Pkg().Path() != "time" || len(x.Call.Args) != 1 {
				return v
			}
			switch f.Name() {
			case "Milliseconds", "Seconds", "Microseconds", "Nanoseconds":
				v = x.Call.Args[0]
			default:
				return v
			}
		default:
			return v
		}
	}
	return v
}

// funcOf returns the declared function or method a call calls statically.
func funcOf(cc *ssa.CallCommon) *types.Func {
	if cc.IsInvoke() {
		return cc.Method
	}
	if g := cc.StaticCallee(); g != nil {
		f, _ := g.Object().(*types.Func)
		return f
	}
	return nil
}

func paramIndex(fn *ssa.Function, p *ssa.Parameter) int {
	for i, q := range fn.Params {
		if q == p {
			return i
		}
	}
	return -1
}
