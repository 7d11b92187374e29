package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Renewals that cannot tell their caller the hold was lost. A worker that
// renews the lease of an item it claimed, and stops the work when the
// renewal fails, is right only if the renewal fails when another holder
// has taken the item over. Two shapes break that whatever the caller does:
//
//   - an UPDATE that moves the expiry and is conditional on the holder
//     (WHERE id = ? AND worker = ?; effects.HeldRenewal) whose answer (the
//     affected-row count, the RETURNING rows) is never read: once the row
//     is another's, it matches nothing, and the renewal returns success;
//   - a Redis Streams XCLAIM with MinIdle 0 to the consumer the package
//     reads its group as: the heartbeat takes the entry back whoever holds
//     it, so a worker whose hold expired and was recovered by another
//     claims it back, gets no error, and both run it.

// checkHeldRenewals reports both shapes in files.
func (c *checker) checkHeldRenewals(files []*ast.File) {
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	type renewal struct {
		call *ast.CallExpr
		held *effects.HeldRenewal
	}
	var renewals []renewal
	claims := map[string]*ast.CallExpr{} // table: the first statement that takes a row of it for a holder
	var streamClaims []*lockfacts.Op
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if eff != nil {
				if held := eff.Held(call); held != nil {
					renewals = append(renewals, renewal{call, held})
					if held.SetsHolder != "" && held.Resource != "" && claims[held.Resource] == nil {
						claims[held.Resource] = call
					}
					return true
				}
			}
			if op := lockfacts.Classify(c.info, c.p.KB, call); op != nil && op.Kind == lockfacts.StreamClaim {
				streamClaims = append(streamClaims, op)
			}
			return true
		})
	}
	for _, r := range renewals {
		switch {
		case r.held.Holder != "":
			c.heldAnswerDropped(eff, r.call, r.held)
		case r.held.SetsHolder == "" && r.held.OnlyExpiry && claims[r.held.Resource] != nil:
			c.renewsAnyHolder(r.call, r.held, claims[r.held.Resource])
		}
	}
	if len(streamClaims) > 0 {
		readers := c.groupReaders(files)
		for _, op := range streamClaims {
			c.retakingClaim(op.Call, op, readers)
		}
	}
}

// renewsAnyHolder reports a renewal keyed by the row alone (no holder in
// its WHERE clause, nothing but the expiry set) of a table whose claim
// writes a holder column: it extends whoever holds the row now.
func (c *checker) renewsAnyHolder(call *ast.CallExpr, held *effects.HeldRenewal, claim *ast.CallExpr) {
	if c.checked[call] {
		return
	}
	c.checked[call] = true
	name := "the call"
	if fn := c.callee(call); fn != nil {
		name = apiName(fn)
	}
	p := c.p.Fset.Position(claim.Pos())
	c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(claim, "the claim that writes the row's holder")},
		"%s renews a row of %s keyed by the row alone, while the claim at %s:%d records its holder: a worker whose hold expired and was taken by another extends the new holder's hold and succeeds, so both hold it and a caller that stops the work when the renewal fails goes on; renew only where the holder column names this holder and return an error when no row was renewed",
		name, strings.TrimPrefix(held.Resource, "table "), filepath.Base(p.Filename), p.Line)
}

// heldAnswerDropped reports a holder-conditional renewal whose answer (the
// result a count or the renewed rows are read from) is never used.
func (c *checker) heldAnswerDropped(eff *effects.Result, call *ast.CallExpr, held *effects.HeldRenewal) {
	if c.checked[call] {
		return
	}
	sc := eff.CallValue(call)
	if sc == nil {
		return
	}
	answer, ok := answerValue(sc)
	if !ok || used(answer) {
		return // no answer the analysis knows (unknown), or one that is read
	}
	c.checked[call] = true
	fn := c.callee(call)
	name := "the call"
	if fn != nil {
		name = apiName(fn)
	}
	what := "a row"
	if held.Resource != "" {
		what = "a row of " + held.Resource
	}
	read := "its affected-row count (RowsAffected)"
	if held.Returning {
		read = "the rows it returns"
	}
	c.p.Reportf(call, nil,
		"%s renews %s only while its %s column names this holder, and %s is never read: when another holder has taken the row over, zero rows match, the hold was lost and the renewal returns success, so a caller that stops the work when the renewal fails goes on beside the new holder; return an error when no row was renewed",
		name, what, held.Holder, read)
}

// answerValue returns the value of the call's answer: its first result
// that is not an error and that a count or rows are read from (a
// sql.Result, a pgconn.CommandTag, *sql.Row, *sql.Rows). For a tuple the
// Extract of it, or nil when none is taken (the answer is discarded). ok
// is false when the call has no such result.
func answerValue(sc *ssa.Call) (ssa.Value, bool) {
	tup, isTuple := sc.Type().(*types.Tuple)
	if !isTuple {
		if !countable(sc.Type()) {
			return nil, false
		}
		return sc, true
	}
	for i := 0; i < tup.Len(); i++ {
		t := tup.At(i).Type()
		if isErrorType(t) {
			continue
		}
		if !countable(t) {
			return nil, false
		}
		for _, in := range refs(sc) {
			if ex, ok := in.(*ssa.Extract); ok && ex.Index == i {
				return ex, true
			}
		}
		return nil, true
	}
	return nil, false
}

// countable: a type with a RowsAffected, Scan or Next method, or an
// interface holding one: what a renewal's count or rows are read from.
func countable(t types.Type) bool {
	for _, m := range []string{"RowsAffected", "Scan", "Next"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, m); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// used: v (nil for a discarded answer) has a use other than debug
// information.
func used(v ssa.Value) bool {
	if v == nil {
		return false
	}
	for _, in := range refs(v) {
		if _, ok := in.(*ssa.DebugRef); !ok {
			return true
		}
	}
	return false
}

// groupReaders returns the XReadGroupArgs literals of the package: the
// consumer names it reads its groups as.
func (c *checker) groupReaders(files []*ast.File) []*ast.CompositeLit {
	var out []*ast.CompositeLit
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok && redisArgs(c.info.TypeOf(lit), "XReadGroupArgs") {
				out = append(out, lit)
			}
			return true
		})
	}
	return out
}

// redisArgs: t is the named go-redis argument struct name (or a pointer to
// it).
func redisArgs(t types.Type, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && isRedisPath(n.Obj().Pkg().Path())
}

func isRedisPath(p string) bool {
	return p == "github.com/redis/go-redis/v9" || p == "github.com/go-redis/redis/v8"
}

// retakingClaim reports an XCLAIM with MinIdle 0 (absent, or the constant
// 0) to the consumer that a group read of the package uses: the renewal of
// an entry this consumer read, done by taking it whoever holds it. A
// MinIdle above zero, or one out of sight, is a takeover of idle entries,
// not a renewal; a consumer no group read names is unknown.
func (c *checker) retakingClaim(call *ast.CallExpr, op *lockfacts.Op, readers []*ast.CompositeLit) {
	if len(op.Opts) != 1 || c.checked[call] {
		return
	}
	lit := argsLiteral(op.Opts[0])
	if lit == nil || !redisArgs(c.info.TypeOf(lit), "XClaimArgs") {
		return
	}
	consumer := fieldValue(lit, "Consumer")
	if minIdle := fieldValue(lit, "MinIdle"); minIdle != nil {
		if d, ok := lockfacts.IntConst(c.info, minIdle); !ok || d != 0 {
			return
		}
	}
	if consumer == nil {
		return
	}
	var reader *ast.CompositeLit
	for _, r := range readers {
		if rc := fieldValue(r, "Consumer"); rc != nil && c.sameSource(rc, consumer) {
			reader = r
			break
		}
	}
	if reader == nil {
		return
	}
	c.checked[call] = true
	p := c.p.Fset.Position(reader.Pos())
	fn := c.callee(call)
	c.p.Reportf(call, []analysis.RelatedInformation{rule.Related(reader, "the group read whose entries the claim renews")},
		"%s with MinIdle 0 renews a pending entry by taking it for the consumer this package reads the group as (XReadGroup at %s:%d), whoever holds it: a worker whose hold expired and was recovered by another consumer takes the entry back and gets no error, so a caller that stops the work when the renewal fails goes on, and both run it; renew only while this consumer still holds the entry (check the owner with XPENDING in a script) and return an error otherwise",
		apiName(fn), filepath.Base(p.Filename), p.Line)
}

// argsLiteral: the composite literal of &T{...} or T{...}.
func argsLiteral(e ast.Expr) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	lit, _ := e.(*ast.CompositeLit)
	return lit
}

// fieldValue: the value of a keyed field of a struct literal, nil when it
// is not set.
func fieldValue(lit *ast.CompositeLit, name string) ast.Expr {
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
			return kv.Value
		}
	}
	return nil
}

// sameSource: a and b are the same constant string, or read the same
// field, variable or constant (q.workerName in two methods of one type).
func (c *checker) sameSource(a, b ast.Expr) bool {
	if x, ok := lockfacts.StringConst(c.info, a); ok {
		y, ok := lockfacts.StringConst(c.info, b)
		return ok && x == y
	}
	obj := func(e ast.Expr) types.Object {
		switch e := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			return c.info.Uses[e.Sel]
		case *ast.Ident:
			if o, ok := c.info.Uses[e].(*types.Var); ok && o.Parent() == o.Pkg().Scope() {
				return o // a package-level variable, not a local or parameter
			}
		}
		return nil
	}
	oa, ob := obj(a), obj(b)
	if oa == nil || oa != ob {
		return false
	}
	_, isFunc := oa.(*types.Func)
	return !isFunc
}
