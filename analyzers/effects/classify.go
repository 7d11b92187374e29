package effects

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/sqltext"
	"github.com/gatesift/gatesift-vet/signals"
)

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
	if a.Pkg == "database/sql" && (a.Kind == "sql" || a.Kind == "sqlread" || a.Kind == "write") {
		if r.embeddedHandle(call) {
			return // SQL on an embedded engine this package opened: local state (embedded.go)
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			if p := r.paramIndex(call, sel.X); p >= 0 {
				e.Handle = p + 1 // the callers say which engine it is
			}
		}
	}
	switch a.Kind {
	case "consume":
		ev.Consume = true
		return
	case "telemetry":
		ev.Telemetry = true
		return
	case "mint":
		return // no effect of its own: a write of what it mints is not idempotent (minted.go)
	case "query-body":
		return
	case "own-certificate":
		// An ACME call orders, authorizes or fetches this instance's own
		// certificate: per-replica by design, whatever HTTP it makes
		// inside. Where the certificate is stored is its own effect.
		return
	case "sql", "sqlread":
		i, _ := a.Arg("query")
		text, ok := r.statementText(call, i)
		if !ok {
			if a.Kind == "sqlread" {
				// A query we cannot read is not evidence of a write; when it
				// is a parameter, its callers may show a claim.
				if p := r.paramOf(call, i); p >= 0 {
					ev.Queries = append(ev.Queries, QueryParam{Param: p, Gate: r.gate(call).returned, API: apiName(fn), Where: e.Where})
				}
				return
			}
			// A statement we cannot read may insert or converge: unknown,
			// silent unless the strict profile asks. When it is a parameter
			// of this function, its callers may say what it is.
			e.Kind, e.Unknown = "write", true
			if p := r.paramOf(call, i); p >= 0 {
				e.Stmt, e.StmtGate = p+1, r.gate(call).returned
			}
			break
		}
		if !r.statement(call, i, text, true, ev, &e) {
			return
		}
	case "http":
		m, ok := r.constString(arg("method"))
		if !ok {
			// A request whose method comes from configuration (a webhook
			// channel's) reaches a server and may change it: unknown, as an
			// unreadable statement is. Never evidence alone, but an
			// interface implemented by it and by a known send is one
			// whose every implementation reaches shared state.
			e.Kind, e.Unknown, e.Resource = "send", true, "HTTP (method not constant)"
			break
		}
		switch strings.ToUpper(m) {
		case "GET", "HEAD", "OPTIONS", "":
			return
		}
		if r.queryBody(call, a) {
			return // the request asks (an OCSP status query), it changes nothing
		}
		e.Kind = "send"
		e.Resource = "HTTP " + strings.ToUpper(m)
		if id := r.ownReport(call, a); id != "" {
			// A heartbeat or status report keyed by this replica's own
			// identity: each replica reports itself (ownreport.go).
			e.Idempotent = true
			e.Resource += ", reports this replica's own state (keyed by " + id + ")"
			break
		}
		// A request whose answer the caller reads asks (a status query, a
		// version check): unknown, not an accumulating send.
		e.Unknown = r.answerRead(call, true)
	case "script":
		if r.scriptClaimEvent(call, a, ev) {
			return // a claim: the LE3xxx rules judge coordination, and its answer gates the work
		}
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
		if redisTakes[strings.ToUpper(cmd)] {
			// Do(ctx, "LPOP", key): a claim of what it pops, when its
			// answer gates the work.
			if g := r.gate(call); g.checked {
				ev.Coordination, ev.Gate = "claim ("+strings.ToUpper(cmd)+")", g.returned
			}
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
	case "write":
		// A write whose statement or payload the call does not show: a
		// prepared statement (read back from its Prepare), a batch.
		if text, ok := r.preparedText(call); ok {
			if !r.statement(call, -1, text, true, ev, &e) {
				return
			}
			break
		}
		if !isRedis(a.Pkg) {
			e.Unknown = true // scripts keep their rule: they count by their keys, below
			break
		}
		fallthrough
	default:
		if r.queryBody(call, a) {
			return
		}
		if a.Pkg == "net/http" && a.Kind == "send" && r.answerRead(call, false) {
			e.Unknown = true // http.Post whose answer is read: a query, as above
		}
		if a.Kind == "send" {
			if id := r.ownReport(call, a); id != "" {
				e.Idempotent = true // each replica reports itself (ownreport.go)
				e.Resource = "reports this replica's own state (keyed by " + id + ")"
			}
		}
		r.ormWrite(call, fn, &e)
		if k := arg("key"); k != nil {
			key := r.keyText(k)
			if key == "" && isRedis(a.Pkg) {
				return // a key we cannot read may be the instance's own
			}
			if isRedis(a.Pkg) && lockKey.MatchString(key) {
				return // coordination state (the LE3xxx rules judge it), not the work's effect
			}
			if strings.Contains(key, "*") && r.identityKey(call, a) {
				return // "beats:" + s.host with host from os.Hostname: the instance's own key
			}
			if key != "" {
				e.Resource = resourcePrefix(a.Pkg) + key
			}
		}
		if e.Idempotent {
			r.mintedWrite(call, a, &e)
		}
	}
	ev.Effects = append(ev.Effects, e)
}

func claimName(st sqltext.Statement) string {
	switch st.Kind {
	case sqltext.Select:
		return "FOR UPDATE SKIP LOCKED"
	case sqltext.Insert:
		return "conditional upsert"
	}
	return "compare-and-set UPDATE"
}

// statementText reads the i-th argument of call as a statement: a
// constant expression, or through value flow.
func (r *Result) statementText(call *ast.CallExpr, i int) (string, bool) {
	if i < 0 || i >= len(call.Args) {
		return "", false
	}
	if text, ok := r.constString(call.Args[i]); ok {
		return text, true
	}
	fl := r.flow()
	text, ok := fl.text(fl.arg(call, i), 0)
	if !ok || strings.TrimSpace(strings.ReplaceAll(text, dynamicPart, "")) == "" {
		return "", false
	}
	return text, true
}

// queryBody: the call's request body (args.body) is built by a query-body
// API of the knowledge base, seen through value flow (bytes.NewReader(req)
// of req, _ := ocsp.CreateRequest(...)).
func (r *Result) queryBody(call *ast.CallExpr, a *signals.API) bool {
	i, ok := a.Arg("body")
	if !ok || i >= len(call.Args) || r.pass.TypesInfo.Types[call.Args[i]].IsNil() {
		return false
	}
	fl := r.flow()
	v := fl.arg(call, i)
	for depth := 0; v != nil && depth < maxDepth; depth++ {
		switch x := unwrap(v).(type) {
		case *ssa.Extract:
			v = x.Tuple
		case *ssa.Call:
			callee := x.Call.StaticCallee()
			if callee == nil {
				return false
			}
			fn, _ := callee.Object().(*types.Func)
			if fn == nil || fn.Pkg() == nil {
				return false
			}
			if b := r.kb.Match(signals.Effects, fn); b != nil && b.Kind == "query-body" {
				return true
			}
			// A reader over the bytes: bytes.NewReader, bytes.NewBuffer,
			// strings.NewReader.
			if p := fn.Pkg().Path(); (p == "bytes" || p == "strings") && strings.HasPrefix(fn.Name(), "New") && len(x.Call.Args) == 1 {
				v = x.Call.Args[0]
				continue
			}
			return false
		default:
			return false
		}
	}
	return false
}

// identityKey: the key argument of call carries the instance's identity
// (seen through value flow: a field set from os.Hostname, a pod name).
func (r *Result) identityKey(call *ast.CallExpr, a *signals.API) bool {
	i, ok := a.Arg("key")
	if !ok {
		return false
	}
	fl := r.flow()
	return fl.identity(fl.arg(call, i), 0) != ""
}

// identityArg names the instance identity among the arguments of call (a
// statement keyed by os.Hostname(), a pod name, a field initialised from
// them), or "".
func (r *Result) identityArg(call *ast.CallExpr) string {
	if len(call.Args) < 2 {
		return ""
	}
	fl := r.flow()
	for _, v := range fl.args(call) {
		if id := fl.identity(v, 0); id != "" {
			return id
		}
	}
	return ""
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

// redisTakes: Redis commands that take items out of a shared collection
// (pop or move them): two clients cannot get the same item.
var redisTakes = map[string]bool{
	"LPOP": true, "RPOP": true, "LMPOP": true, "LMOVE": true, "RPOPLPUSH": true, "SPOP": true, "SMOVE": true,
	"ZPOPMIN": true, "ZPOPMAX": true, "ZMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true,
	"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true, "BLMPOP": true,
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
