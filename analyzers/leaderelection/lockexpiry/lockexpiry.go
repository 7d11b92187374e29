package lockexpiry

import (
	"go/ast"
	"go/types"

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
// compares CreateRevision(k) or Version(k) with 0 in the same function.
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
