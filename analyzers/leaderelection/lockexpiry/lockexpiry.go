package lockexpiry

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/projectlocks"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE3001.
// It reads the statements of a project's own lock rows through the value
// flow of the effects analysis (projectlocks, shared with LE3002).
var Analyzer = rule.New(rule.Spec{ID: "LE3001", Run: run, Requires: []*analysis.Analyzer{effects.Analyzer, projectlocks.Analyzer}})

const crash = "if the holder crashes or is killed while it holds the lock, the key stays forever and no replica ever runs the guarded work again"

func run(p *rule.Pass) error {
	if !p.ImportsKnown() {
		return nil
	}
	info := p.TypesInfo
	pkg := lockfacts.Scan(p.Pkg, info, p.KB, p.Files())
	for _, f := range pkg.Funcs {
		for _, op := range f.Ops {
			switch op.Kind {
			case lockfacts.Acquire:
				if !op.NoTTL || op.Key == nil || !pkg.Lockish(f, op) {
					continue
				}
				if exp := f.After(op, lockfacts.Expire); exp != nil {
					p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(exp.Call, "the expiry is set here, by a separate call")},
						"%s takes the lock %s with no expiry and sets one only afterwards with a separate %s (line %d): "+
							"the expiry is not atomic with the acquire, and a crash between the two calls leaves the lock held forever, "+
							"so no replica runs the work again; set the TTL in the acquire itself (SetNX with a TTL, SET key token NX PX ms) "+
							"or use the elector, whose leases expire",
						op.What(), op.KeyLabel(), exp.What(), lockfacts.Line(p.Fset, exp.Call.Pos()))
					continue
				}
				p.Reportf(op.Call, nil,
					"%s takes the lock %s with no expiry (%s): %s; give the lock a TTL in the same call "+
						"(SetNX(ctx, key, token, 30*time.Second) or SET key token NX PX 30000) and renew it while working, "+
						"or use the elector, whose leases expire and are renewed",
					op.What(), op.KeyLabel(), noTTLWhy(op), crash)
			case lockfacts.Takeover:
				if !pkg.IsLockKey(f, op) {
					continue
				}
				if exp := f.After(op, lockfacts.Expire); exp != nil {
					p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(exp.Call, "the expiry is set again here, by a separate call")},
						"%s takes over the lock %s and drops its TTL; the expiry is set again only by a separate %s (line %d): "+
							"a crash between the two calls leaves the lock without expiry, held forever, and no replica runs the work again; "+
							"take over atomically (SET key token NX PX ms after the old key expired, or one Lua script that checks, sets and expires), "+
							"or use the elector",
						op.What(), op.KeyLabel(), exp.What(), lockfacts.Line(p.Fset, exp.Call.Pos()))
					continue
				}
				p.Reportf(op.Call, nil,
					"%s takes over the lock %s and drops its TTL, and nothing sets an expiry again: %s; "+
						"take over with SET key token NX PX ms, or a Lua script that checks, sets and expires at once, or use the elector",
					op.What(), op.KeyLabel(), crash)
			case lockfacts.SQL:
				s := op.Stmt
				if lockRowNoExpiry(s) {
					p.Reportf(op.Call, nil,
						"%s takes a lock row in table %s with no expiry column in the statement: %s; "+
							"store an expiry (locked_until = now() + interval) and let others take over rows whose expiry passed, "+
							"or use the elector's Postgres store",
						op.What(), s.Table, "if the holder dies while it holds the row, the row stays and no replica ever runs the guarded work again")
				}
			case lockfacts.Lease:
				if op.API.Kind == "lease-input" && len(op.Opts) == 1 {
					lit := lockfacts.ResolveLiteral(info, f.Decl.Body, op.Opts[0], op.Call.Pos())
					if d, ok := lockfacts.FieldConst(info, lit, "LeaseDuration"); ok && d == -1 {
						op.NoTTL = true
					}
				}
				if op.NoTTL {
					p.Reportf(op.Call, nil,
						"%s acquires an infinite lease (duration -1): %s; acquire a 15-60 s lease and renew it while working, or use the elector",
						op.What(), "if the holder dies, the lease is never released and no replica ever takes over until someone breaks it by hand")
				}
			}
		}
		etcdTxn(p, info, f)
	}
	if err := projectLocks(p); err != nil {
		return err
	}
	casLocks(p)
	return nil
}

// lockRowNoExpiry: constant SQL that takes a row of a table named like a
// lock (an insert that sets an owner or does nothing on conflict, an update
// that sets the owner) with no expiry column.
func lockRowNoExpiry(s *lockfacts.Statement) bool {
	if !s.LockTable || s.Expiry {
		return false
	}
	return s.Verb == "insert" && (s.OwnerSet || s.OnConflictNothing) ||
		s.Verb == "update" && s.OwnerSet && !s.OwnerCleared
}

func noTTLWhy(op *lockfacts.Op) string {
	switch {
	case op.Cmd == "SETNX":
		return "SETNX has no TTL argument"
	case op.Cmd == "SET" && op.API.Kind == "cmd":
		return "NX without EX or PX"
	case op.API.Kind == "setargs":
		return "SetArgs with Mode NX and neither TTL nor ExpireAt"
	case op.TTLKnown && op.TTL == -1:
		return "KeepTTL on a key that does not exist yet keeps no TTL"
	}
	return "TTL 0 means no expiry"
}

// etcdTxn reports OpPut(k, v) without WithLease in a transaction that
// compares CreateRevision(k) or Version(k) with 0 in the same function,
// when the put is a lock: the function is named like one, or the key is
// the code's own (it has a constant part). A create-if-absent of a key
// made only of parameters and fields, in a function named otherwise, is a
// store's create primitive whose use the caller decides: silent.
func etcdTxn(p *rule.Pass, info *types.Info, f *lockfacts.Func) {
	absent := map[string]*ast.CallExpr{} // key text -> Compare call
	for _, op := range f.Ops {
		if op.Kind != "txn-absent" || op.Key == nil {
			continue
		}
		ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 3 || ast.Unparen(call.Args[0]) != op.Call {
				return true
			}
			fn := lockfacts.Callee(info, call)
			if fn == nil || fn.Name() != "Compare" || fn.Pkg() == nil || fn.Pkg() != lockfacts.Callee(info, op.Call).Pkg() {
				return true
			}
			cmp, ok1 := lockfacts.StringConst(info, call.Args[1])
			v, ok2 := lockfacts.IntConst(info, call.Args[2])
			if ok1 && ok2 && cmp == "=" && v == 0 {
				absent[op.KeyID()] = call
			}
			return true
		})
	}
	if len(absent) == 0 {
		return
	}
	for _, op := range f.Ops {
		if op.Kind != "txn-put" || op.Key == nil || op.Spread {
			continue
		}
		cmp := absent[op.KeyID()]
		if cmp == nil {
			continue
		}
		if !lockNamed(f.Decl) && !namesKey(info, f.Decl, op.Key) {
			// a store's create primitive (topo's Create(path, contents)):
			// the caller names the key and decides what it is for
			continue
		}
		leased := false
		for _, o := range op.Opts {
			call, ok := ast.Unparen(o).(*ast.CallExpr)
			if !ok {
				leased = true // an option we cannot see: assume it may be the lease
				break
			}
			// a known option of the same package (WithPrevKV) is not a
			// lease; anything else may be
			fn := lockfacts.Callee(info, call)
			put := lockfacts.Callee(info, op.Call)
			if fn == nil || fn.Pkg() != put.Pkg() {
				leased = true
				break
			}
			if oo := lockfacts.Classify(info, p.KB, call); oo != nil && oo.Kind == "lease" {
				leased = true
				break
			}
		}
		if leased {
			continue
		}
		p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(cmp, "the create-if-absent comparison that makes this put a lock")},
			"the etcd transaction takes the lock %s (create if absent) with a put that has no lease (clientv3.WithLease): %s; "+
				"grant a lease (Grant + KeepAlive) and put with clientv3.WithLease(id), or use concurrency.NewMutex or the elector's etcd store",
			op.KeyLabel(), crash)
	}
}

// lockNamed: the function or its receiver type is named like a lock, a
// lease or an election.
func lockNamed(fd *ast.FuncDecl) bool {
	for _, n := range []string{fd.Name.Name, lockfacts.RecvTypeName(fd)} {
		l := strings.ToLower(n)
		for _, w := range []string{"lock", "lease", "leader", "elect", "campaign", "acquire", "claim", "mutex"} {
			if strings.Contains(l, w) {
				return true
			}
		}
	}
	return false
}

// namesKey: the key expression, through the local variables of fd it is
// built from (each read at its definition; a later reassignment is not
// followed), has a string constant with a letter in
// it ("/locks/compactor", "/leader/"+name): the code names the key.
func namesKey(info *types.Info, fd *ast.FuncDecl, key ast.Expr) bool {
	seen := map[types.Object]bool{}
	var named func(e ast.Expr) bool
	named = func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && strings.ContainsFunc(n.Value, unicode.IsLetter) {
					found = true
				}
			case *ast.Ident:
				o := info.Uses[n]
				if c, ok := o.(*types.Const); ok && c.Val().Kind() == constant.String && strings.ContainsFunc(constant.StringVal(c.Val()), unicode.IsLetter) {
					found = true
					return false
				}
				v, ok := o.(*types.Var)
				if !ok || seen[v] || v.Pos() < fd.Pos() || v.Pos() >= fd.End() {
					return true
				}
				seen[v] = true
				if d := definition(info, fd, v); d != nil && named(d) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	return named(key)
}

// definition: the expression a local variable of fd is given where it is
// defined (v := e, var v = e), or nil.
func definition(info *types.Info, fd *ast.FuncDecl, v *types.Var) ast.Expr {
	var def ast.Expr
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && info.Defs[id] == v {
						def = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			for i, nm := range n.Names {
				if info.Defs[nm] == v && i < len(n.Values) {
					def = n.Values[i]
				}
			}
		}
		return def == nil
	})
	return def
}
