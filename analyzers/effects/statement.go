package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/sqltext"
)

// statement decides what a readable SQL statement run by call does: it
// coordinates (an advisory lock, a SKIP LOCKED claim, a conditional write
// whose answer gates the work), has no effect (a read, a write keyed by the
// instance's own identity), or is the effect e, filled in. It reports
// whether e is kept.
//
// at is the call whose answer gates the work: the statement's own call, or,
// for a statement handed to a helper, the call of the helper; query is the
// index of the statement among at's arguments. answered says at's result
// carries the statement's answer (a helper that does not return it cannot
// gate a claim).
func (r *Result) statement(at *ast.CallExpr, query int, text string, answered bool, ev *Event, e *Effect) bool {
	st := sqltext.Classify(text)
	gate := func() gateUse {
		if !answered {
			return gateUse{}
		}
		return r.gate(at)
	}
	switch {
	case st.AdvisoryLock != "" && strings.HasPrefix(st.AdvisoryLock, "pg_"):
		if strings.Contains(st.AdvisoryLock, "unlock") {
			return false
		}
		// pg_advisory_lock waits; pg_try_advisory_lock coordinates only
		// when its answer gates the work.
		if !strings.Contains(st.AdvisoryLock, "try") {
			ev.Coordination = st.AdvisoryLock
		} else if g := gate(); g.checked {
			ev.Coordination, ev.Gate = st.AdvisoryLock, g.returned
		}
		return false
	case st.Claim && st.Kind == sqltext.Select:
		ev.Coordination = "claim (" + claimName(st) + ")"
		return false
	case st.Claim:
		// A conditional write is a claim only when its affected-row
		// count or returned value decides whether the work runs.
		if g := gate(); g.checked {
			ev.Coordination, ev.Gate = "claim ("+claimName(st)+")", g.returned
			return false
		}
	case !st.Writes:
		// A read keyed by the instance's own identity (the queued rows
		// assigned to this worker) whose rows the work then uses is this
		// replica's share, as rows a claim returned are.
		if st.Kind == sqltext.Select {
			if id := r.identityArg(at); id != "" {
				if g := gate(); g.checked {
					ev.Coordination, ev.Gate = "rows keyed by the instance's identity ("+id+")", g.returned
				}
			}
		}
		return false
	}
	// A renewal extends the expiry of a row: one this replica holds when
	// it is keyed by the replica's identity or by what it claimed.
	extends := st.Kind == sqltext.Update && !st.Claim && sqltext.ExtendsExpiry(text)
	if extends && ev.Held == nil {
		ev.Held = &HeldRenewal{
			Holder: sqltext.HolderColumn(text), SetsHolder: sqltext.SetsHolder(text), OnlyExpiry: sqltext.OnlyExpiry(text),
			Resource: tableResource(st), Returning: sqltext.Returns(text), Where: r.where(at.Pos()),
		}
	}
	if id := r.identityArg(at); id != "" {
		if extends {
			ev.Renewal = &Renewal{Key: "the instance's identity (" + id + ")", Resource: tableResource(st), Where: r.where(at.Pos())}
		}
		return false // keyed by the instance's own identity: per-replica by design
	}
	if name := r.claimedArgName(at); name != "" {
		if extends {
			ev.Renewal = &Renewal{Key: "what a claim returned (" + name + ")", Resource: tableResource(st), Where: r.where(at.Pos())}
		}
		return false // keyed by what a claim returned to this replica (claimkeys.go)
	}
	if perReplicaTable.MatchString(sqltext.Normalize(text)) && r.keyOutOfSight(at, query) {
		// A heartbeat or registration table whose key comes from where the
		// analysis cannot follow (a parameter struct of generated code):
		// most likely the instance's own row. A constant key is not.
		return false
	}
	e.Kind, e.Unknown, e.Stmt, e.StmtGate = string(st.Kind), false, 0, false
	e.Keys = r.keyParams(at, query, text)
	if st.Kind == sqltext.Merge || st.Kind == sqltext.Truncate {
		e.Kind = "write"
	}
	if st.Increment {
		e.Kind = "increment"
	}
	e.Idempotent = st.Idempotent
	e.Resource = tableResource(st)
	e.Extends = extends
	return true
}

// tableResource names the first table a statement writes, "" when it is
// not constant.
func tableResource(st sqltext.Statement) string {
	if len(st.Tables) > 0 && !strings.Contains(st.Tables[0], dynamicPart) {
		return "table " + st.Tables[0]
	}
	return ""
}

// perReplicaTable: tables and columns that record the instance itself
// (heartbeats, registrations). The table name alone is not evidence: it
// counts only when the statement's key cannot be followed (keyOutOfSight).
var perReplicaTable = regexp.MustCompile(`\b(heartbeats?|last_seen(_at)?|last_heartbeat(_at)?|alive_at|instances|replicas|node_status|worker_heartbeats?)\b`)

// keyOutOfSight: the statement's arguments (other than the statement and
// contexts) include a value the analysis cannot follow and no constant.
func (r *Result) keyOutOfSight(call *ast.CallExpr, query int) bool {
	hidden := false
	for i, a := range call.Args {
		if i == query || isContextType(r.pass.TypesInfo.TypeOf(a)) {
			continue
		}
		if tv, ok := r.pass.TypesInfo.Types[a]; ok && tv.Value != nil {
			return false
		}
		hidden = true
	}
	return hidden
}

func isContextType(t types.Type) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// preparedText reads the statement of a prepared statement's Exec from the
// Prepare (or PrepareContext) call that made its receiver, directly or
// through the field or variable it was kept in.
func (r *Result) preparedText(call *ast.CallExpr) (string, bool) {
	fl := r.flow()
	c := fl.common(call)
	if c == nil || c.IsInvoke() || c.Signature().Recv() == nil || len(c.Args) == 0 {
		return "", false
	}
	return fl.prepared(c.Args[0], 0)
}

func (fl *flow) prepared(v ssa.Value, depth int) (string, bool) {
	if depth > maxDepth {
		return "", false
	}
	switch v := v.(type) {
	case *ssa.UnOp:
		if k := storeKey(v.X); k != nil && v.Op == token.MUL {
			out, found := "", false
			for _, s := range fl.stores[k] {
				text, ok := fl.prepared(s, depth+1)
				if !ok || found && text != out {
					return "", false
				}
				out, found = text, true
			}
			return out, found
		}
	case *ssa.Extract:
		prep, ok := v.Tuple.(*ssa.Call)
		if !ok || v.Index != 0 {
			return "", false
		}
		callee := prep.Call.StaticCallee()
		if callee == nil || !strings.HasPrefix(callee.Name(), "Prepare") {
			return "", false
		}
		for _, a := range prep.Call.Args {
			if b, ok := a.Type().Underlying().(*types.Basic); ok && b.Kind() == types.String {
				text, ok := fl.text(a, 0)
				if ok && strings.TrimSpace(strings.ReplaceAll(text, dynamicPart, "")) != "" {
					return text, true
				}
				return "", false
			}
		}
	}
	return "", false
}

// paramOf returns the index among its function's parameters of the
// parameter that call's i-th argument is, or -1: a helper that runs the
// statement its caller hands it (func (s *Store) exec(ctx, q string, ...)).
func (r *Result) paramOf(call *ast.CallExpr, i int) int {
	if i < 0 || i >= len(call.Args) {
		return -1
	}
	fl := r.flow()
	p, ok := fl.arg(call, i).(*ssa.Parameter)
	if !ok || p.Parent() == nil || p.Parent().Parent() != nil {
		return -1 // not a parameter, or one of a closure
	}
	params := p.Parent().Params
	off := 0
	if p.Parent().Signature.Recv() != nil {
		off = 1
	}
	for j, x := range params {
		if x == p && j >= off {
			return j - off
		}
	}
	return -1
}

// resolveStatement reads, at a call of a helper, the statement the helper
// runs as its parameter e.Stmt-1, and replaces the helper's unknown write
// by what that statement does. It reports whether e (possibly rewritten:
// still unknown, or linked to the caller's own parameter) is kept.
func (r *Result) resolveStatement(call *ast.CallExpr, e *Effect, ev *Event) bool {
	idx := e.Stmt - 1
	text, ok := r.statementText(call, idx)
	if !ok {
		e.Stmt = 0
		if p := r.paramOf(call, idx); p >= 0 {
			// Handed on again: the caller's callers may say.
			e.Stmt = p + 1
			e.StmtGate = e.StmtGate && r.gate(call).returned
		}
		return true
	}
	return r.statement(call, idx, text, e.StmtGate, ev, e)
}

// resolveQuery reads, at a call of helper, the query statement the helper
// runs as its parameter q.Param: a claim coordinates (when the helper
// returns its answer and this call tests it), a writing query (UPDATE ...
// RETURNING) is the effect, a plain read is nothing. A query handed on
// again stays a query parameter of the caller.
func (r *Result) resolveQuery(call *ast.CallExpr, helper *types.Func, q QueryParam, ev *Event) {
	text, ok := r.statementText(call, q.Param)
	if !ok {
		if p := r.paramOf(call, q.Param); p >= 0 {
			ev.Queries = append(ev.Queries, QueryParam{Param: p, Gate: q.Gate && r.gate(call).returned, API: q.API, Where: q.Where})
		}
		return
	}
	e := Effect{Kind: "write", API: q.API, Where: q.Where, Via: funcName(helper)}
	if r.statement(call, q.Param, text, q.Gate, ev, &e) {
		ev.Effects = append(ev.Effects, e)
	}
}
