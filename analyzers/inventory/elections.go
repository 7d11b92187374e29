package inventory

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// elections lists every leader election the knowledge base names
// (coordinators of kind election or campaign: client-go leaderelection,
// etcd concurrency.Election, this project's elector.Candidate.Run), with
// the lease name and timing when the code shows them as constants.
func elections(src Source) []*site {
	consts := leadership.NewConsts(src.Info, src.Types, src.Files)
	var out []*site
	for _, fd := range lockfacts.Funcs(src.Files) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := leadership.Callee(src.Info, call)
			if fn == nil || fn.Pkg() == src.Types {
				return true
			}
			api := leadership.Kind(src.KB, fn, "election", "campaign")
			if api == nil {
				return true
			}
			s := &site{kind: KindElection, node: call, decl: fd}
			s.entry.Scheduler = funcName(fn)
			e := &electionReader{src: src, consts: consts, body: fd.Body, use: call.Pos()}
			switch {
			case fn.Name() == "RunOrDie" && len(call.Args) > 1:
				s.entry.Lease = e.clientGo(call.Args[1])
			case recvIs(fn, "LeaderElector"):
				if mk := e.receiverCall(call); mk != nil && len(mk.Args) > 0 {
					s.entry.Lease = e.clientGo(mk.Args[0])
				}
			case recvIs(fn, "Election"):
				s.entry.Key, s.entry.Lease = e.etcd(call)
			case recvIs(fn, "Candidate"):
				s.entry.Key, s.entry.Lease = e.elector(call)
			}
			if i, ok := api.Arg("fn"); ok && i < len(call.Args) {
				s.entry.Work = workName(call.Args[i])
			}
			out = append(out, s)
			return true
		})
	}
	return out
}

// recvIs: fn is a method of the type name; a package-level function (a
// project's own election API declared in its knowledge) is not.
func recvIs(fn *types.Func, name string) bool {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	n := leadership.NamedOf(recv.Type())
	return n != nil && n.Obj().Name() == name
}

// electionReader folds the constants around one election call.
type electionReader struct {
	src    Source
	consts *leadership.Consts
	body   *ast.BlockStmt
	use    token.Pos
}

// duration folds e to a constant time.Duration.
func (r *electionReader) duration(e ast.Expr) (time.Duration, bool) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	d, ok := r.consts.Int64(e)
	return time.Duration(d), ok
}

// timing describes the duration fields of a literal, in the order given;
// a field missing or not constant reads "?".
func (r *electionReader) timing(lit *ast.CompositeLit, fields [][2]string) string {
	if lit == nil {
		return ""
	}
	vals := map[string]ast.Expr{}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				vals[id.Name] = kv.Value
			}
		}
	}
	var parts []string
	known := false
	for _, f := range fields {
		text := "?"
		if v, ok := vals[f[0]]; ok {
			if d, ok := r.duration(v); ok {
				text, known = lockfacts.FmtDuration(d), true
			}
		}
		parts = append(parts, f[1]+" "+text)
	}
	if !known {
		return ""
	}
	return strings.Join(parts, ", ")
}

// clientGo reads a LeaderElectionConfig.
func (r *electionReader) clientGo(cfg ast.Expr) string {
	lit := lockfacts.ResolveLiteral(r.src.Info, r.body, cfg, r.use)
	return r.timing(lit, [][2]string{{"LeaseDuration", "lease"}, {"RenewDeadline", "renew deadline"}, {"RetryPeriod", "retry"}})
}

// etcd reads the election prefix of concurrency.NewElection(session,
// prefix) and the TTL of the session's concurrency.NewSession(client,
// concurrency.WithTTL(n)).
func (r *electionReader) etcd(call *ast.CallExpr) (key, lease string) {
	mk := r.receiverCall(call)
	if mk == nil || len(mk.Args) < 2 {
		return "", ""
	}
	key, _ = lockfacts.StringConst(r.src.Info, mk.Args[1])
	sess := r.definingCall(mk.Args[0])
	if sess == nil {
		return key, ""
	}
	lease = "session TTL 60s (etcd's default)"
	for _, o := range sess.Args[min(1, len(sess.Args)):] {
		oc, ok := ast.Unparen(o).(*ast.CallExpr)
		if !ok {
			return key, "session TTL set by options"
		}
		fn := leadership.Callee(r.src.Info, oc)
		if leadership.Kind(r.src.KB, fn, "session-ttl") == nil || len(oc.Args) != 1 {
			continue
		}
		if n, ok := r.consts.Int64(oc.Args[0]); ok {
			lease = fmt.Sprintf("session TTL %ds", n)
		} else {
			lease = "session TTL " + lockfacts.ExprText(oc.Args[0])
		}
	}
	return key, lease
}

// elector reads elector.New(store, name, opts...): the lease name, and the
// timing of a WithTiming(elector.Timing{...}) option.
func (r *electionReader) elector(call *ast.CallExpr) (key, lease string) {
	mk := r.receiverCall(call)
	if mk == nil || len(mk.Args) < 2 {
		return "", ""
	}
	key, _ = lockfacts.StringConst(r.src.Info, mk.Args[1])
	lease = "default timing (elector.DefaultTiming)"
	for _, o := range mk.Args[2:] {
		oc, ok := ast.Unparen(o).(*ast.CallExpr)
		if !ok {
			return key, "timing set by options"
		}
		fn := leadership.Callee(r.src.Info, oc)
		if fn == nil || fn.Name() != "WithTiming" || len(oc.Args) != 1 {
			continue
		}
		lease = "timing from " + lockfacts.ExprText(oc.Args[0])
		lit := lockfacts.ResolveLiteral(r.src.Info, r.body, oc.Args[0], r.use)
		if t := r.timing(lit, [][2]string{{"LeaseDuration", "lease"}, {"RenewInterval", "renew every"}, {"RetryInterval", "retry"}}); t != "" {
			lease = t
		}
	}
	return key, lease
}

// receiverCall returns the call that built the receiver of a method call,
// when the receiver is a local variable assigned once in the function.
func (r *electionReader) receiverCall(call *ast.CallExpr) *ast.CallExpr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	return r.definingCall(sel.X)
}

// definingCall returns the call whose first result initialises the local
// variable e names (v, err := f(...)), when it is assigned exactly once.
func (r *electionReader) definingCall(e ast.Expr) *ast.CallExpr {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := r.src.Info.Uses[id].(*types.Var)
	if v == nil {
		return nil
	}
	var def *ast.CallExpr
	n := 0
	ast.Inspect(r.body, func(node ast.Node) bool {
		as, ok := node.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			lid, ok := l.(*ast.Ident)
			if !ok || (r.src.Info.Defs[lid] != v && r.src.Info.Uses[lid] != v) {
				continue
			}
			n++
			switch {
			case len(as.Rhs) == 1 && i == 0:
				def, _ = ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			case len(as.Rhs) == len(as.Lhs):
				def, _ = ast.Unparen(as.Rhs[i]).(*ast.CallExpr)
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return def
}

// workName names the work function handed to an election.
func workName(e ast.Expr) string {
	if _, ok := ast.Unparen(e).(*ast.FuncLit); ok {
		return "function literal"
	}
	return lockfacts.ExprText(e)
}
