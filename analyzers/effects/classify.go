package effects

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/sqltext"
	"github.com/gatesift/gatesift-vet/signals"
)

// perReplicaSQL: tables and columns that record the instance itself
// (heartbeats, registrations); writing them on every replica is the point.
var perReplicaSQL = regexp.MustCompile(`\b(heartbeats?|last_seen(_at)?|last_heartbeat(_at)?|alive_at|instances|replicas|node_status|worker_heartbeats?)\b`)

// lockKey: Redis keys that hold locks and leases.
var lockKey = regexp.MustCompile(`(?i)(^|[:._/-])(lock|locks|mutex|leader|lease|election)([:._/*-]|$)`)

// classify fills ev for a call matched in the Effects section.
func (r *Result) classify(call *ast.CallExpr, fn *types.Func, a *signals.API, ev *Event) {
	e := Effect{Kind: a.Kind, Idempotent: a.Idempotent, API: apiName(fn), Where: r.where(call.Pos())}
	arg := func(role string) ast.Expr {
		if i, ok := a.Arg(role); ok && i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	switch a.Kind {
	case "consume":
		ev.Consume = true
		return
	case "sql", "sqlread":
		text, ok := r.constString(arg("query"))
		if !ok {
			if a.Kind == "sqlread" {
				return // a query we cannot read is not evidence of a write
			}
			e.Kind = "write"
			break
		}
		st := sqltext.Classify(text)
		switch {
		case st.AdvisoryLock != "" && strings.HasPrefix(st.AdvisoryLock, "pg_"):
			if !strings.Contains(st.AdvisoryLock, "unlock") {
				ev.Coordination = st.AdvisoryLock
			}
			return
		case st.Claim && (st.Kind == sqltext.Select || r.resultUsed(call)):
			ev.Coordination = "claim (" + claimName(st) + ")"
			return
		case !st.Writes:
			return
		}
		if perReplicaSQL.MatchString(sqltext.Normalize(text)) {
			return
		}
		e.Kind = string(st.Kind)
		if st.Kind == sqltext.Merge || st.Kind == sqltext.Truncate {
			e.Kind = "write"
		}
		if st.Increment {
			e.Kind = "increment"
		}
		e.Idempotent = st.Idempotent
		if len(st.Tables) > 0 {
			e.Resource = "table " + st.Tables[0]
		}
	case "http":
		m, ok := r.constString(arg("method"))
		if !ok {
			return
		}
		switch strings.ToUpper(m) {
		case "GET", "HEAD", "OPTIONS", "":
			return
		}
		e.Kind = "send"
		e.Resource = "HTTP " + strings.ToUpper(m)
	case "script":
		if !r.scriptEffect(call, arg("script"), &e) {
			return
		}
		key := r.keyText(arg("key"))
		if key == "" || lockKey.MatchString(key) {
			return // the instance's own key, or coordination state
		}
		e.Resource = "redis key " + key
	case "cmd":
		cmd, ok := r.constString(arg("cmd"))
		if !ok {
			return
		}
		kind, idem := redisCommand(strings.ToUpper(cmd))
		if kind == "" {
			return
		}
		e.Kind, e.Idempotent = kind, idem
		key := r.keyText(arg("key"))
		if key == "" || lockKey.MatchString(key) {
			return // the instance's own key, or coordination state
		}
		e.Resource = "redis key " + key
	default:
		if k := arg("key"); k != nil {
			key := r.keyText(k)
			if key == "" && isRedis(a.Pkg) {
				return // a key we cannot read may be the instance's own
			}
			if isRedis(a.Pkg) && lockKey.MatchString(key) {
				return // coordination state (the LE3xxx rules judge it), not the work's effect
			}
			if key != "" {
				e.Resource = resourcePrefix(a.Pkg) + key
			}
		}
	}
	ev.Effects = append(ev.Effects, e)
}

func claimName(st sqltext.Statement) string {
	if st.Kind == sqltext.Select {
		return "FOR UPDATE SKIP LOCKED"
	}
	return "compare-and-set UPDATE"
}

func isRedis(pkg string) bool {
	return strings.Contains(pkg, "redis")
}

func resourcePrefix(pkg string) string {
	switch {
	case isRedis(pkg):
		return "redis key "
	case strings.Contains(pkg, "kafka"), strings.Contains(pkg, "nats"), strings.Contains(pkg, "amqp"),
		strings.Contains(pkg, "sqs"), strings.Contains(pkg, "sns"):
		return "queue "
	}
	return ""
}

// redisCommand classifies a Redis command name.
func redisCommand(cmd string) (kind string, idempotent bool) {
	switch cmd {
	case "SET", "SETEX", "PSETEX", "MSET", "HSET", "HMSET":
		return "update", true // an overwrite: the last writer wins, nothing accumulates
	case "GETSET", "SETRANGE", "APPEND":
		return "update", false
	case "SETNX", "HSETNX", "SADD", "ZADD", "PFADD":
		return "insert", true
	case "DEL", "UNLINK", "HDEL", "SREM", "ZREM", "LREM", "EXPIRE", "PEXPIRE":
		return "delete", false
	case "INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY", "HINCRBY", "ZINCRBY":
		return "increment", false
	case "LPUSH", "RPUSH", "XADD", "PUBLISH", "LPUSHX", "RPUSHX":
		return "send", false
	case "EVAL", "EVALSHA", "FCALL":
		return "write", false
	}
	return "", false
}

// constString returns the constant string value of e.
func (r *Result) constString(e ast.Expr) (string, bool) {
	if e == nil {
		return "", false
	}
	tv, ok := r.pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// keyText renders a key: the constant itself, or its constant prefix plus
// "*" ("digest:" + user → "digest:*"), or "" when nothing constant leads it
// or the variable part names the instance itself (per-replica).
func (r *Result) keyText(e ast.Expr) string {
	if e == nil {
		return ""
	}
	if s, ok := r.constString(e); ok {
		return s
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		// []string{"lock:billing", ...}: the keys of a script; the first names it.
		if len(e.Elts) > 0 {
			return r.keyText(e.Elts[0])
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			if identityLike(e.Y) {
				return ""
			}
			if left := r.keyText(e.X); left != "" && !strings.HasSuffix(left, "*") {
				return left + "*"
			}
		}
	case *ast.CallExpr:
		// fmt.Sprintf("lock:%s", x): the format with its verbs as "*".
		if fn, ok := typeutil.Callee(r.pass.TypesInfo, e).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(e.Args) > 0 {
			for _, a := range e.Args[1:] {
				if identityLike(a) {
					return ""
				}
			}
			if f, ok := r.constString(e.Args[0]); ok {
				return verbs.ReplaceAllString(f, "*")
			}
		}
	}
	return ""
}

var verbs = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

var identityWords = regexp.MustCompile(`(?i)(host|instance|node|pod|replica|self|member|machine|identity)`)

// identityLike: an expression naming the running instance (hostname, pod
// name, node ID): keys built from it are per-replica.
func identityLike(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && identityWords.MatchString(id.Name) {
			found = true
		}
		return !found
	})
	return found
}

// resultUsed: the call's result is kept (a compare-and-set that checks
// RowsAffected), not discarded.
func (r *Result) resultUsed(call *ast.CallExpr) bool {
	used := false
	for _, f := range r.pass.Files {
		if f.FileStart <= call.Pos() && call.End() <= f.FileEnd {
			ast.Inspect(f, func(n ast.Node) bool {
				if used {
					return false
				}
				switch n := n.(type) {
				case *ast.ExprStmt:
					if n.X == call {
						return false
					}
				case *ast.AssignStmt:
					for i, rhs := range n.Rhs {
						if rhs == call && len(n.Lhs) > 0 {
							if id, ok := n.Lhs[min(i, len(n.Lhs)-1)].(*ast.Ident); !ok || id.Name != "_" {
								used = true
							}
						}
					}
				case *ast.CallExpr:
					if n != call {
						for _, a := range n.Args {
							if a == call {
								used = true
							}
						}
						if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.X == call {
							used = true // db.Exec(...).RowsAffected()
						}
					}
				}
				return true
			})
		}
	}
	return used
}
