// Package lockfacts recognises distributed-lock operations for the LE3xxx
// rules: which call acquires, releases, renews or expires a lock, on which
// key or handle, with which TTL, as far as the code shows it with constants.
//
// The knowledge of which API does what lives in signals/kb/locks.yaml; this
// package reads the arguments the entries point at (constant-folded keys,
// TTLs, raw Redis commands, SQL text) and answers "unknown" for anything it
// cannot see, so that the rules stay silent on it.
package lockfacts

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/signals"
)

// Kind is what a lock operation does.
type Kind string

const (
	Acquire  Kind = "acquire"  // takes the lock on Key (SET NX, SETNX, Obtain, lock-row INSERT)
	Expire   Kind = "expire"   // sets the TTL of Key
	Takeover Kind = "takeover" // overwrites Key whoever holds it (GETSET)
	Delete   Kind = "delete"   // deletes Key without an ownership check
	Get      Kind = "get"      // reads Key (an ownership check, when compared)
	Script   Kind = "script"   // a Lua script on Key (compare-and-delete, refresh)
	Mutex    Kind = "mutex"    // builds a handle (redsync NewMutex)
	Lock     Kind = "lock"     // acquires the receiver handle
	Unlock   Kind = "unlock"   // releases the receiver handle with an ownership check
	Renew    Kind = "renew"    // extends the receiver handle or Key
	SQL      Kind = "sql"      // a SQL statement; see Op.Stmt
	Lease    Kind = "lease-acquire"
	Break    Kind = "lease-break" // breaks the receiver's lease whoever holds it (no lease ID checked)
	// StreamClaim moves pending stream entries to the Consumer of Opts[0]
	// (an XClaimArgs) once idle MinIdle (XCLAIM).
	StreamClaim Kind = "stream-claim"
	Other       Kind = ""
)

// Op is one recognised lock operation.
type Op struct {
	Kind Kind
	Call *ast.CallExpr
	API  *signals.API
	// Cmd is the raw Redis command for Do-style calls ("SET", "SETNX", "DEL").
	Cmd string
	// Key is the key expression, if the API has one.
	Key ast.Expr
	// KeyConst is the constant value of Key, when it folds to a string.
	KeyConst   string
	IsKeyConst bool
	// TTL facts: NoTTL is true when the code shows constantly that the key
	// gets no expiry (TTL 0, KeepTTL on a new key, SET NX without EX/PX,
	// SETNX); TTLKnown when TTL is a constant, in TTL.
	NoTTL    bool
	TTLKnown bool
	TTL      time.Duration
	TTLExpr  ast.Expr
	// Recv is the receiver expression of a method call (the handle for
	// Lock/Unlock/Renew, the client for Redis commands).
	Recv ast.Expr
	// Stmt is the SQL classification for Kind SQL; Conn says how the
	// statement reaches the database: "pool", "conn", "tx" or "".
	Stmt *Statement
	Conn string
	// Opts are the option arguments (redsync NewMutex, etcd OpPut).
	Opts []ast.Expr
	// Spread is true when the call passes a variadic slice (args...), so
	// the arguments are not all visible.
	Spread bool
	// Lease is the project's lease interface the call goes through, for
	// an op of API.Kind LeaseKind (leaseiface.go).
	Lease *LeaseIface
}

// Callee returns the function or method a call invokes statically, or nil.
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// Classify returns the lock operation call performs, or nil.
func Classify(info *types.Info, kb *signals.Knowledge, call *ast.CallExpr) *Op {
	fn := Callee(info, call)
	if fn == nil {
		return nil
	}
	api := kb.Match(signals.Locks, fn)
	if api == nil {
		return nil
	}
	op := &Op{Call: call, API: api, Spread: call.Ellipsis.IsValid()}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if s := info.Selections[sel]; s != nil {
			op.Recv = sel.X
		}
	}
	arg := func(role string) ast.Expr {
		i, ok := api.Arg(role)
		if !ok || i >= len(call.Args) {
			return nil
		}
		return call.Args[i]
	}
	setKey := func(e ast.Expr) {
		op.Key = e
		if e != nil {
			op.KeyConst, op.IsKeyConst = StringConst(info, e)
		}
	}
	switch api.Kind {
	case "acquire":
		op.Kind = Acquire
		setKey(arg("key"))
		if ttl := arg("ttl"); ttl != nil {
			op.TTLExpr = ttl
			if d, ok := IntConst(info, ttl); ok {
				op.TTLKnown, op.TTL = true, time.Duration(d)
				// go-redis: 0 is no expiry, KeepTTL (-1) keeps the TTL of
				// a key that, for SET NX, does not exist: none either.
				op.NoTTL = d == 0 || d == -1
			}
		}
	case "setargs":
		setKey(arg("key"))
		if !classifySetArgs(info, op, arg("opts")) {
			return nil
		}
	case "cmd":
		i, _ := api.Arg("cmd")
		if !classifyCmd(info, op, call.Args, i) {
			return nil
		}
	case "expire":
		op.Kind = Expire
		setKey(arg("key"))
		op.TTLExpr = arg("ttl")
	case "takeover":
		op.Kind = Takeover
		setKey(arg("key"))
	case "delete":
		op.Kind = Delete
		setKey(arg("key"))
	case "get":
		op.Kind = Get
		setKey(arg("key"))
	case "script":
		op.Kind = Script
		if k := arg("key"); k != nil {
			setKey(k)
		}
	case "mutex":
		op.Kind = Mutex
		setKey(arg("key"))
		if i, ok := api.Arg("opts"); ok && i < len(call.Args) {
			op.Opts = call.Args[i:]
		}
	case "lock":
		op.Kind = Lock
	case "unlock":
		op.Kind = Unlock
	case "renew":
		op.Kind = Renew
		op.TTLExpr = arg("ttl")
	case "txn-absent", "txn-put", "lease", "expiry":
		op.Kind = Kind(api.Kind)
		setKey(arg("key"))
		op.TTLExpr = arg("ttl")
		if i, ok := api.Arg("opts"); ok && i <= len(call.Args) {
			op.Opts = call.Args[min(i, len(call.Args)):]
		}
	case "lease-acquire":
		op.Kind = Lease
		if ttl := arg("ttl"); ttl != nil {
			op.TTLExpr = ttl
			if d, ok := leaseSeconds(info, ttl); ok {
				op.TTLKnown, op.TTL = true, time.Duration(d)*time.Second
				op.NoTTL = d == -1
			}
		}
	case "lease-break":
		op.Kind = Break
	case "stream-claim":
		op.Kind = StreamClaim
		if a := arg("opts"); a != nil {
			op.Opts = []ast.Expr{a}
		}
	case "lease-input":
		op.Kind = Lease
		if in := arg("input"); in != nil {
			op.Opts = []ast.Expr{in}
		}
	case "sql-pool", "sql-conn", "sql-tx", "sql":
		q := arg("query")
		if q == nil {
			return nil
		}
		text, ok := StringConst(info, q)
		if !ok {
			return nil
		}
		op.Kind = SQL
		op.Stmt = ParseSQL(text)
		op.Conn = strings.TrimPrefix(strings.TrimPrefix(api.Kind, "sql"), "-")
	default:
		return nil
	}
	return op
}

// KeyID names a key for matching an acquire with a release: the quoted
// constant, or the expression's text (the same expression in the same
// function, or in methods of one type, names the same key).
func (op *Op) KeyID() string {
	if op.Key == nil {
		return ""
	}
	if op.IsKeyConst {
		return "const:" + op.KeyConst
	}
	return "expr:" + types.ExprString(ast.Unparen(op.Key))
}

// KeyLabel is how a message shows the key.
func (op *Op) KeyLabel() string {
	if op.Key == nil {
		return "the lock key"
	}
	if op.IsKeyConst {
		return "key \"" + op.KeyConst + "\""
	}
	return "key " + types.ExprString(op.Key)
}

// What names the call in messages: "SetNX", "Do(\"SET\" ... NX)".
func (op *Op) What() string {
	if op.Cmd != "" && op.API.Kind == "cmd" {
		return op.API.Name + "(\"" + op.Cmd + "\")"
	}
	return op.API.Name
}

// Funcs returns every function body of the files, with its declaration
// (FuncDecl for top-level functions and methods), for rules that reason per
// function. Function literals stay inside their declaration's body.
func Funcs(files []*ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				out = append(out, fd)
			}
		}
	}
	return out
}

// RecvTypeName returns the name of a method's receiver type, or "".
// FuncLabel names a function in a message: "Lock", or "(T).Lock" for a
// method of T.
func FuncLabel(recv, name string) string {
	if recv == "" {
		return name
	}
	return "(" + recv + ")." + name
}

func RecvTypeName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name
		}
		return ""
	}
}

// Line returns the line of pos.
func Line(fset *token.FileSet, pos token.Pos) int { return fset.Position(pos).Line }

// Func is one function declaration with its recognised lock operations in
// source order (function literals inside it included).
type Func struct {
	Decl *ast.FuncDecl
	Recv string // receiver type name, "" for a function
	Ops  []*Op
}

// Package is every function of a package with its lock operations, and the
// keys the package acquires as locks.
type Package struct {
	Funcs []*Func
	self  *types.Package
	info  *types.Info
	// lock keys: constant keys anywhere; expression keys per function and
	// per receiver type
	constKeys map[string]*Op
	funcKeys  map[*ast.FuncDecl]map[string]*Op
	recvKeys  map[string]map[string]*Op
}

// Scan classifies every call of the files of package self. Calls of self's
// own functions are never lock operations: a lock library is not its own
// user.
func Scan(self *types.Package, info *types.Info, kb *signals.Knowledge, files []*ast.File) *Package {
	pkg := &Package{
		constKeys: map[string]*Op{},
		funcKeys:  map[*ast.FuncDecl]map[string]*Op{},
		recvKeys:  map[string]map[string]*Op{},
		self:      self,
		info:      info,
	}
	for _, fd := range Funcs(files) {
		f := &Func{Decl: fd, Recv: RecvTypeName(fd)}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if op := Classify(info, kb, call); op != nil {
					if fn := Callee(info, call); fn.Pkg() != self {
						f.Ops = append(f.Ops, op)
					}
				}
			}
			return true
		})
		pkg.Funcs = append(pkg.Funcs, f)
		for _, op := range f.Ops {
			if op.Kind != Acquire || op.Key == nil || !pkg.Lockish(f, op) {
				continue
			}
			id := op.KeyID()
			if op.IsKeyConst {
				if pkg.constKeys[id] == nil {
					pkg.constKeys[id] = op
				}
				continue
			}
			if pkg.funcKeys[fd] == nil {
				pkg.funcKeys[fd] = map[string]*Op{}
			}
			if pkg.funcKeys[fd][id] == nil {
				pkg.funcKeys[fd][id] = op
			}
			if f.Recv != "" {
				if pkg.recvKeys[f.Recv] == nil {
					pkg.recvKeys[f.Recv] = map[string]*Op{}
				}
				if pkg.recvKeys[f.Recv][id] == nil {
					pkg.recvKeys[f.Recv][id] = op
				}
			}
		}
	}
	return pkg
}

var lockWords = []string{"lock", "leader", "lease", "mutex", "elect", "singleton", "semaphore"}

// HasLockWord reports whether a name says lock, leader, lease, mutex,
// election, singleton or semaphore (not block or clock).
func HasLockWord(s string) bool { return hasLockWord(s) }

func hasLockWord(s string) bool {
	s = strings.ToLower(s)
	s = strings.ReplaceAll(strings.ReplaceAll(s, "block", ""), "clock", "")
	for _, w := range lockWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Lockish reports whether a SET NX-style acquire is named like a lock: its
// key, the variable it is assigned to, its function, the function's
// receiver type or the package says lock, leader, lease, mutex, election,
// singleton or semaphore. A bare SETNX in a client wrapper, a dedup marker
// or a once-flag is not a lock, and the lock rules leave it alone.
// Lock-library acquires (Obtain, Lock) are always locks.
func (p *Package) Lockish(f *Func, op *Op) bool {
	if op.API.Kind != "acquire" && op.API.Kind != "setargs" && op.API.Kind != "cmd" {
		return true
	}
	if op.API.Name == "Obtain" {
		return true
	}
	if op.Key != nil {
		if op.IsKeyConst && hasLockWord(op.KeyConst) || hasLockWord(ExprText(op.Key)) {
			return true
		}
	}
	if hasLockWord(f.Decl.Name.Name) || strings.Contains(strings.ToLower(f.Decl.Name.Name), "acquire") || hasLockWord(f.Recv) || (p.self != nil && hasLockWord(p.self.Name())) {
		return true
	}
	// ok, err := ...SetNX(...).Result(): locked, acquired
	found := false
	ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found || len(as.Lhs) == 0 || len(as.Rhs) != 1 {
			return !found
		}
		if as.Rhs[0].Pos() <= op.Call.Pos() && op.Call.End() <= as.Rhs[0].End() {
			name := strings.ToLower(ExprText(as.Lhs[0]))
			found = hasLockWord(name) || strings.Contains(name, "acquir") || strings.Contains(name, "obtain")
		}
		return !found
	})
	return found
}

// IsLockKey reports whether op's key is one the package acquires as a lock:
// the same constant anywhere, or the same expression in the same function
// or in a method of the same receiver type.
func (p *Package) IsLockKey(f *Func, op *Op) bool { return p.AcquireOf(f, op) != nil }

// AcquireOf returns the acquire of op's key (see IsLockKey), preferring one
// in the same function, or nil.
func (p *Package) AcquireOf(f *Func, op *Op) *Op {
	if op.Key == nil {
		return nil
	}
	id := op.KeyID()
	if op.IsKeyConst {
		return p.constKeys[id]
	}
	if a := p.funcKeys[f.Decl][id]; a != nil {
		return a
	}
	if f.Recv != "" {
		return p.recvKeys[f.Recv][id]
	}
	return nil
}

// After returns the first operation of f after op (in source order) with
// one of the kinds on the same key, or nil.
func (f *Func) After(op *Op, kinds ...Kind) *Op {
	for _, o := range f.Ops {
		if o.Call.Pos() <= op.Call.Pos() || o.Key == nil {
			continue
		}
		for _, k := range kinds {
			if o.Kind == k && o.KeyID() == op.KeyID() {
				return o
			}
		}
	}
	return nil
}
