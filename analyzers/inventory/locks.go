package inventory

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/signals"
)

// locks lists every lock or lease acquisition the lock machinery
// (lockfacts, the LE3xxx rules' own classifier) recognises in the files,
// plus coordinator locks of the knowledge base lockfacts has no model of
// (a Consul Lock). The verdicts are attached later from the rules' reports.
func locks(src Source) []*site {
	var out []*site
	pkg := lockfacts.Scan(src.Types, src.Info, src.KB, src.Files)
	classified := map[*ast.CallExpr]bool{}
	for _, f := range pkg.Funcs {
		for _, op := range f.Ops {
			classified[op.Call] = true
			if !acquires(pkg, f, op) {
				continue
			}
			s := &site{kind: KindLock, node: op.Call, decl: f.Decl}
			s.entry.Scheduler = lockAPI(src.Info, op)
			if op.Kind == lockfacts.Lock && op.Key == nil {
				if m := mutexOf(f, op); m != nil {
					op = m // the handle's key is where it was built
				}
			}
			if op.IsKeyConst {
				s.entry.Key = op.KeyConst
			}
			s.entry.Lease = ttlOf(op)
			if op.Kind == lockfacts.SQL && op.Stmt != nil {
				s.entry.Resources = tableOf(op.Stmt)
			}
			out = append(out, s)
		}
	}
	// Coordinator locks the classifier does not model.
	for _, fd := range lockfacts.Funcs(src.Files) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || classified[call] {
				return true
			}
			fn := leadership.Callee(src.Info, call)
			if fn == nil || fn.Pkg() == src.Types {
				return true
			}
			if api := leadership.Kind(src.KB, fn, "lock"); api != nil {
				s := &site{kind: KindLock, node: call, decl: fd}
				s.entry.Scheduler = apiName(fn, api)
				out = append(out, s)
			}
			return true
		})
	}
	return out
}

// acquires reports whether op takes a lock, with the tests the LE3xxx
// rules use to decide that a SET NX or a SQL statement is a lock at all.
func acquires(pkg *lockfacts.Package, f *lockfacts.Func, op *lockfacts.Op) bool {
	switch op.Kind {
	case lockfacts.Acquire:
		return pkg.Lockish(f, op)
	case lockfacts.Lock, lockfacts.Lease, "txn-absent":
		return true
	case lockfacts.Takeover:
		return pkg.IsLockKey(f, op)
	case lockfacts.SQL:
		s := op.Stmt
		if s == nil {
			return false
		}
		if s.Advisory != "" {
			return !s.AdvisoryUnlock()
		}
		return s.LockTable && (s.Verb == "insert" && (s.OwnerSet || s.OnConflictNothing) ||
			s.Verb == "update" && s.OwnerSet && !s.OwnerCleared)
	}
	return false
}

// mutexOf returns the NewMutex call that built the handle op locks, in f.
func mutexOf(f *lockfacts.Func, op *lockfacts.Op) *lockfacts.Op {
	if op.Recv == nil {
		return nil
	}
	handle := lockfacts.ExprText(op.Recv)
	for _, o := range f.Ops {
		if o.Kind == lockfacts.Mutex && o.Call.Pos() < op.Call.Pos() && lockfacts.AssignedTo(f.Decl.Body, o.Call) == handle {
			return o
		}
	}
	return nil
}

// ttlOf says what the code shows of a lock's expiry.
func ttlOf(op *lockfacts.Op) string {
	switch {
	case op.NoTTL:
		return "no expiry"
	case op.TTLKnown:
		return "TTL " + lockfacts.FmtDuration(op.TTL)
	case op.TTLExpr != nil && op.Kind == lockfacts.Lease:
		return "lease of " + lockfacts.ExprText(op.TTLExpr) + " seconds"
	case op.TTLExpr != nil:
		return "TTL " + lockfacts.ExprText(op.TTLExpr)
	case op.Kind == lockfacts.SQL && op.Stmt != nil && op.Stmt.Advisory != "":
		if strings.Contains(op.Stmt.Advisory, "xact") {
			return "until the transaction ends"
		}
		return "until unlocked or the session ends"
	case op.Kind == lockfacts.SQL && op.Stmt != nil && op.Stmt.Expiry:
		return "expiry column"
	case op.Kind == lockfacts.SQL:
		return "no expiry column"
	}
	return ""
}

func tableOf(s *lockfacts.Statement) []string {
	if s.Table == "" {
		return nil
	}
	return []string{"table " + s.Table}
}

// lockAPI names a lock operation: "redis.SetNX", "redis.Do(\"SET\")",
// "redislock.Client.Obtain".
func lockAPI(info *types.Info, op *lockfacts.Op) string {
	fn := lockfacts.Callee(info, op.Call)
	if fn == nil {
		return op.What()
	}
	name := apiName(fn, op.API)
	if op.Cmd != "" && op.API.Kind == "cmd" {
		name += "(" + strconv.Quote(op.Cmd) + ")"
	}
	return name
}

// apiName is package.Recv.Name of an API call, with the package's own name
// (clientv3, not v3) and the receiver the knowledge base names (go-redis
// commands live on an unexported type, which is left out).
func apiName(fn *types.Func, api *signals.API) string {
	name := fn.Name()
	if api.Recv != "" && api.Recv != "*" {
		name = api.Recv + "." + name
	}
	if fn.Pkg() != nil {
		name = fn.Pkg().Name() + "." + name
	}
	return name
}

// funcName names a called function for the inventory: "elector.Candidate.Run".
func funcName(fn *types.Func) string {
	name := fn.Name()
	if r := signals.RecvName(fn); r != "" {
		name = r + "." + name
	}
	if fn.Pkg() != nil {
		name = fn.Pkg().Name() + "." + name
	}
	return name
}

// enclosing returns the function declaration of files around pos, or nil.
func enclosing(files []*ast.File, pos token.Pos) *ast.FuncDecl {
	for _, f := range files {
		if pos < f.FileStart || pos > f.FileEnd {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
				return fd
			}
		}
	}
	return nil
}
