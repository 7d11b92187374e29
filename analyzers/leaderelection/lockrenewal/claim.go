package lockrenewal

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/signals"
)

// This file judges leases that are a queue's claim of an item: the item
// becomes claimable by another consumer after a fixed time (a Redis Streams
// pending entry idle past a takeover's min-idle, a row whose lease column
// passed), while the consumer's handler runs on it with no renewal.

// queueClaim is one claim of an item with a fixed expiry and a takeover.
type queueClaim struct {
	call *ast.CallExpr
	what string // "XReadGroup", "the UPDATE of jobs.locked_until"
	// takeovers: the calls that take the item over once the expiry
	// passed; the smallest expiry among those the item does not reach
	// counts (the item's own holder claiming it by its ID refreshes it)
	takeovers []takeover
	fix       func(time.Duration) string
	// seeds: the calls whose results are the claimed item (the claim
	// itself, or the SELECT ... FOR UPDATE that picked the row)
	seeds []*ast.CallExpr
	// renewals: calls that extend a claim of this kind; one keyed by the
	// item (or whose key the analysis cannot tell) makes the claim safe
	renewals []*ast.CallExpr
	// renewed: a renewal exists that the analysis cannot tie to an item
	// (a script, a raw command): silent
	renewed bool
}

// takeover is a call that takes items whose claim is older than expiry.
type takeover struct {
	node     ast.Node
	expiry   time.Duration
	expiryOf string
	what     string
	// refreshIfKeyed: when the claimed item reaches it (its ID), the call
	// is the holder refreshing its own claim (XCLAIM to itself)
	refreshIfKeyed bool
	args           *ast.CompositeLit // a stream takeover's XClaimArgs
}

// kbCall is a call the knowledge base's locks section names, with the
// function declaration it is in.
type kbCall struct {
	call *ast.CallExpr
	api  *signals.API
	decl *ast.FuncDecl
}

// kbCalls lists the package's calls of APIs in the locks section.
func (c *checker) kbCalls() []kbCall {
	var out []kbCall
	for _, f := range c.p.Files() {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if fn := lockfacts.Callee(c.info, call); fn != nil {
					if api := c.p.KB.Match(signals.Locks, fn); api != nil {
						out = append(out, kbCall{call: call, api: api, decl: fd})
					}
				}
				return true
			})
		}
	}
	return out
}

// checkClaims reports queue claims whose work runs unbounded with no
// renewal.
func (c *checker) checkClaims() {
	calls := c.kbCalls()
	claims := c.streamClaims(calls)
	claims = append(claims, c.sqlClaims(calls)...)
	claims = append(claims, c.visibilityClaims(calls)...)
	for _, q := range claims {
		if q.renewed || len(q.takeovers) == 0 {
			continue
		}
		s := c.claimSSA()
		var seeds []ssa.Value
		for _, call := range q.seeds {
			if v := s.callValue(call.Lparen); v != nil {
				seeds = append(seeds, v)
			}
		}
		if len(seeds) == 0 {
			continue
		}
		// the work is judged against the shortest expiry (a context
		// deadline below it bounds the work)
		shortest := q.takeovers[0].expiry
		for _, to := range q.takeovers {
			shortest = min(shortest, to.expiry)
		}
		t := c.traceItem(s, seeds, shortest)
		if c.renewedClaim(s, q, t) || t.found == nil {
			continue
		}
		var to *takeover
		for i := range q.takeovers {
			cand := &q.takeovers[i]
			if cand.refreshIfKeyed && t.keyed[cand.node.(*ast.CallExpr).Lparen] {
				to = nil // the holder claims its own item again: a refresh
				break
			}
			if to == nil || cand.expiry < to.expiry {
				to = cand
			}
		}
		if to == nil || to.expiry >= longTTL {
			continue
		}
		if to.expiry != shortest {
			t = c.traceItem(s, seeds, to.expiry)
			if t.found == nil {
				continue
			}
		}
		w := t.found
		c.p.Reportf(q.call, []analysis.RelatedInformation{
			{Pos: to.node.Pos(), End: to.node.End(), Message: "takeover of the item once its claim is older than " + lockfacts.FmtDuration(to.expiry) + ": " + to.what},
			{Pos: w.pos, Message: "work on the claimed item, of unbounded duration: " + w.what},
		},
			"%s claims an item for a fixed %s (%s): %s (line %d) gives it to another consumer once that passes, and nothing extends the claim while "+
				"the item is worked on (%s, line %d): a handler that runs longer than %s has its item taken over and processed by a second consumer "+
				"at the same time; %s, and stop the work when that fails, or bound the work with a context deadline below %s",
			q.what, lockfacts.FmtDuration(to.expiry), to.expiryOf, to.what, lockfacts.Line(c.p.Fset, to.node.Pos()),
			w.what, lockfacts.Line(c.p.Fset, w.pos), lockfacts.FmtDuration(to.expiry), q.fix(to.expiry), lockfacts.FmtDuration(to.expiry))
	}
}

// renewedClaim: a renewal of the claim exists, keyed by the item (the item
// reaches it) or by a value the analysis cannot tell apart from the item
// (anything but a constant: a parameter, a field, another query's result
// may all be the same item's ID).
func (c *checker) renewedClaim(s *claimSSA, q *queueClaim, t *itemTracer) bool {
	for _, r := range q.renewals {
		if t.keyed[r.Lparen] {
			return true
		}
		for _, in := range s.calls[r.Lparen] {
			if !constantKeys(in.Common()) {
				return true
			}
		}
		if len(s.calls[r.Lparen]) == 0 {
			return true // not in the SSA form (dead code?): cannot tell
		}
	}
	return false
}

// constantKeys: every argument but the receiver and the contexts is a
// constant: a statement keyed by a fixed row, not by an item.
func constantKeys(common *ssa.CallCommon) bool {
	args := common.Args
	// the receiver (static method call), the context and the query
	// text come first; the statement's arguments after them
	for i, a := range args {
		if i == 0 {
			continue
		}
		if _, isCtx := namedType(a.Type()); isCtx {
			continue
		}
		if isConst(a) {
			continue
		}
		return false
	}
	return true
}

func namedType(t types.Type) (string, bool) {
	n := namedOf(t)
	return n, n == "context.Context"
}

// isConst: a constant, possibly converted to an interface or packed in a
// variadic slice of constants.
func isConst(v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.MakeInterface:
		return isConst(x.X)
	case *ssa.Slice:
		alloc, ok := x.X.(*ssa.Alloc)
		if !ok || alloc.Referrers() == nil {
			return false
		}
		for _, ref := range *alloc.Referrers() {
			ia, ok := ref.(*ssa.IndexAddr)
			if !ok || ia.Referrers() == nil {
				continue
			}
			for _, r := range *ia.Referrers() {
				if st, ok := r.(*ssa.Store); ok && !isConst(st.Val) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// streamClaims finds Redis Streams consumer-group reads whose pending
// entries a takeover (XCLAIM or XAUTOCLAIM with a min-idle) may claim.
func (c *checker) streamClaims(calls []kbCall) []*queueClaim {
	var reads []kbCall
	var takeovers []takeover
	var renewals []*ast.CallExpr
	renewed := false
	for _, k := range calls {
		switch k.api.Kind {
		case "stream-read":
			reads = append(reads, k)
		case "stream-claim", "stream-autoclaim":
			d, how, known := c.minIdle(k)
			switch {
			case !known:
				renewed = true // a min-idle of 0 at run time would be a refresh
			case d == 0 && k.api.Kind == "stream-claim":
				renewals = append(renewals, k.call)
			case d > 0:
				takeovers = append(takeovers, takeover{node: k.call, args: c.argsLiteral(k), expiry: d, expiryOf: how,
					what:           lockfacts.ExprText(k.call.Fun) + " of entries idle longer than that",
					refreshIfKeyed: k.api.Kind == "stream-claim"})
			}
		case "cmd":
			if i, ok := k.api.Arg("cmd"); ok && i < len(k.call.Args) {
				if cmd, ok := lockfacts.StringConst(c.info, k.call.Args[i]); ok && strings.Contains(strings.ToUpper(cmd), "CLAIM") {
					renewed = true // a raw XCLAIM: min-idle not read here
				}
			}
		case "script":
			if op := lockfacts.Classify(c.info, c.p.KB, k.call); op != nil {
				if src, ok := c.scriptSource(op); !ok || strings.Contains(strings.ToLower(src), "xclaim") {
					renewed = true // a script that may refresh an entry
				}
			}
		}
	}
	if len(takeovers) == 0 {
		return nil // pending entries are never taken over
	}
	var out []*queueClaim
	for _, r := range reads {
		lit := c.argsLiteral(r)
		if c.trueField(lit, "NoAck") {
			continue // NOACK: the entry is never pending, nothing to take over
		}
		if lit == nil {
			continue
		}
		var mine []takeover
		for _, to := range takeovers {
			if sameGroup(c.groupOf(lit), c.groupOf(to.args)) {
				mine = append(mine, to)
			}
		}
		if len(mine) == 0 {
			continue
		}
		out = append(out, &queueClaim{
			call:      r.call,
			what:      lockfacts.ExprText(r.call.Fun) + " (a consumer-group read: the entry stays pending for this consumer)",
			takeovers: mine,
			fix: func(d time.Duration) string {
				// a bare XCLAIM with MinIdle 0 takes the entry back whoever
				// holds it (LE4001 reports that renewal), so the advice is
				// a refresh conditional on still holding it
				return "refresh the entry's idle time while handling it, from a goroutine every " +
					lockfacts.FmtDuration((d / 3).Truncate(time.Second)) +
					", only while this consumer still holds it (a script that checks the entry's consumer in XPENDING before it XCLAIMs it with MinIdle 0)"
			},
			seeds:    []*ast.CallExpr{r.call},
			renewals: renewals,
			renewed:  renewed,
		})
	}
	return out
}

// argsLiteral is the argument struct literal of a stream command.
func (c *checker) argsLiteral(k kbCall) *ast.CompositeLit {
	i, ok := k.api.Arg("args")
	if !ok || i >= len(k.call.Args) {
		return nil
	}
	return lockfacts.ResolveLiteral(c.info, k.decl.Body, k.call.Args[i], k.call.Pos())
}

// groupOf is the consumer group a stream command's arguments name when it
// is a constant (quoted), or "".
func (c *checker) groupOf(lit *ast.CompositeLit) string {
	if lit == nil {
		return ""
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Group" {
			if s, ok := lockfacts.StringConst(c.info, kv.Value); ok {
				return strconv.Quote(s)
			}
			return ""
		}
	}
	return ""
}

// trueField: the literal sets the boolean field name to constant true.
func (c *checker) trueField(lit *ast.CompositeLit, name string) bool {
	if lit == nil {
		return false
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				tv := c.info.Types[kv.Value]
				return tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value)
			}
		}
	}
	return false
}

// sameGroup: two commands may name the same group unless both name
// different constants.
func sameGroup(a, b string) bool {
	return a == "" || b == "" || a == b
}

// minIdle reads the MinIdle of an XClaim/XAutoClaim's argument struct: a
// constant, or a field whose every assignment in the package is a constant
// (a configuration default).
func (c *checker) minIdle(k kbCall) (time.Duration, string, bool) {
	lit := c.argsLiteral(k)
	if lit == nil {
		return 0, "", false
	}
	var e ast.Expr
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return 0, "", false
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "MinIdle" {
			e = kv.Value
		}
	}
	if e == nil {
		return 0, "no MinIdle", true
	}
	if d, ok := lockfacts.IntConst(c.info, e); ok {
		return time.Duration(d), "the MinIdle " + lockfacts.ExprText(e), true
	}
	return c.fieldDefault(e)
}

// fieldDefault reads a duration field (s.config.MaxIdleTime) whose every
// assignment in the package is a constant: the smallest of them.
func (c *checker) fieldDefault(e ast.Expr) (time.Duration, string, bool) {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return 0, "", false
	}
	field, ok := c.info.Uses[sel.Sel].(*types.Var)
	if !ok || !field.IsField() {
		return 0, "", false
	}
	return c.fieldDefaultVar(field)
}

// fieldDefaultVar is fieldDefault for the field itself.
func (c *checker) fieldDefaultVar(field *types.Var) (time.Duration, string, bool) {
	var vals []time.Duration
	var texts []string
	known := true
	record := func(v ast.Expr) {
		if d, ok := lockfacts.IntConst(c.info, v); ok && d > 0 {
			vals = append(vals, time.Duration(d))
			texts = append(texts, lockfacts.ExprText(v))
		} else if _, ok := lockfacts.IntConst(c.info, v); !ok {
			known = false
		}
	}
	for _, f := range c.p.Files() {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				if len(x.Lhs) != len(x.Rhs) {
					return true
				}
				for j, l := range x.Lhs {
					if s, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && c.info.Uses[s.Sel] == field {
						record(x.Rhs[j])
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok && c.info.Uses[id] == field {
					record(x.Value)
				}
			}
			return true
		})
	}
	if !known || len(vals) == 0 {
		return 0, "", false
	}
	best := 0
	for j := range vals {
		if vals[j] < vals[best] {
			best = j
		}
	}
	return vals[best], texts[best] + ", the default of " + field.Name(), true
}
