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
	"go/constant"
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
	Other    Kind = ""
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

// classifySetArgs reads go-redis SetArgs{Mode: "NX", TTL: d}: a lock when
// the Mode is the constant "NX"; no expiry when neither TTL nor ExpireAt is
// set (or KeepTTL is true).
func classifySetArgs(info *types.Info, op *Op, opts ast.Expr) bool {
	lit, ok := ast.Unparen(opts).(*ast.CompositeLit)
	if !ok {
		return false
	}
	var mode string
	hasTTL, ttlUnknown := false, false
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		name, _ := kv.Key.(*ast.Ident)
		if name == nil {
			return false
		}
		switch name.Name {
		case "Mode":
			m, ok := StringConst(info, kv.Value)
			if !ok {
				return false
			}
			mode = strings.ToUpper(m)
		case "TTL":
			op.TTLExpr = kv.Value
			if d, ok := IntConst(info, kv.Value); ok {
				if d > 0 {
					hasTTL, op.TTLKnown, op.TTL = true, true, time.Duration(d)
				}
			} else {
				ttlUnknown = true
			}
		case "ExpireAt":
			hasTTL = true
		case "KeepTTL":
			// a new key has no TTL to keep
		}
	}
	if mode != "NX" {
		return false
	}
	op.Kind = Acquire
	op.Cmd = "SET"
	op.NoTTL = !hasTTL && !ttlUnknown
	if ttlUnknown {
		op.TTLKnown = false
	}
	return true
}

// classifyCmd reads a raw Redis command: Do(ctx, "SET", k, v, "NX", "PX", 30000).
func classifyCmd(info *types.Info, op *Op, args []ast.Expr, i int) bool {
	if i >= len(args) {
		return false
	}
	cmd, ok := StringConst(info, args[i])
	if !ok {
		return false
	}
	op.Cmd = strings.ToUpper(cmd)
	rest := args[i+1:]
	if op.Spread && len(rest) > 0 {
		// Do("DEL", keys...): the keys are not visible one by one.
		if op.Cmd != "DEL" && op.Cmd != "UNLINK" {
			return false
		}
	}
	key := func() {
		if len(rest) > 0 {
			op.Key = rest[0]
			op.KeyConst, op.IsKeyConst = StringConst(info, rest[0])
		}
	}
	switch op.Cmd {
	case "SETNX":
		if len(rest) < 2 {
			return false
		}
		key()
		op.Kind, op.NoTTL = Acquire, true
	case "SET":
		if len(rest) < 2 {
			return false
		}
		key()
		nx, ttl := false, false
		for j := 2; j < len(rest); j++ {
			w, ok := StringConst(info, rest[j])
			if !ok {
				// a value after EX/PX is the TTL itself; anything else
				// unknown makes the whole command unknown
				if j > 2 {
					if p, _ := StringConst(info, rest[j-1]); isTTLWord(p) {
						if d, ok := IntConst(info, rest[j]); ok {
							op.TTLKnown, op.TTL = true, ttlUnit(p, d)
						}
						op.TTLExpr = rest[j]
						continue
					}
				}
				return false
			}
			switch w = strings.ToUpper(w); {
			case w == "NX":
				nx = true
			case isTTLWord(w):
				ttl = true
				if j+1 < len(rest) {
					op.TTLExpr = rest[j+1]
					if d, ok := IntConst(info, rest[j+1]); ok {
						op.TTLKnown, op.TTL = true, ttlUnit(w, d)
					} else if s, ok := StringConst(info, rest[j+1]); ok {
						_ = s // "30000" as a string: a TTL all the same
					}
					j++
				}
			}
		}
		if !nx {
			return false
		}
		op.Kind, op.NoTTL = Acquire, !ttl
	case "DEL", "UNLINK":
		key()
		op.Kind = Delete
	case "GET":
		key()
		op.Kind = Get
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		key()
		op.Kind = Expire
		if len(rest) > 1 {
			op.TTLExpr = rest[1]
		}
	case "GETSET":
		key()
		op.Kind = Takeover
	case "EVAL", "EVALSHA":
		// EVAL script numkeys key...
		if len(rest) >= 3 {
			op.Key = rest[2]
			op.KeyConst, op.IsKeyConst = StringConst(info, rest[2])
		}
		op.Kind = Script
	default:
		return false
	}
	return true
}

func isTTLWord(w string) bool {
	switch strings.ToUpper(w) {
	case "EX", "PX", "EXAT", "PXAT":
		return true
	}
	return false
}

func ttlUnit(w string, d int64) time.Duration {
	switch strings.ToUpper(w) {
	case "EX":
		return time.Duration(d) * time.Second
	case "PX":
		return time.Duration(d) * time.Millisecond
	}
	return 0
}

// StringConst returns the constant string value of e.
func StringConst(info *types.Info, e ast.Expr) (string, bool) {
	if e == nil {
		return "", false
	}
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// IntConst returns the constant integer value of e.
func IntConst(info *types.Info, e ast.Expr) (int64, bool) {
	if e == nil {
		return 0, false
	}
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
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

// ResolveLiteral returns the composite literal e is, or the one the local
// variable e was last assigned from before use in body.
func ResolveLiteral(info *types.Info, body *ast.BlockStmt, e ast.Expr, use token.Pos) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	if lit, ok := e.(*ast.CompositeLit); ok {
		return lit
	}
	id, ok := e.(*ast.Ident)
	if !ok || body == nil {
		return nil
	}
	obj := info.ObjectOf(id)
	var found *ast.CompositeLit
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= use {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if lid, ok := l.(*ast.Ident); ok && info.ObjectOf(lid) == obj && i < len(s.Rhs) {
					lit, _ := ast.Unparen(s.Rhs[i]).(*ast.CompositeLit)
					found = lit
				}
			}
		case *ast.ValueSpec:
			for i, name := range s.Names {
				if info.ObjectOf(name) == obj && i < len(s.Values) {
					lit, _ := ast.Unparen(s.Values[i]).(*ast.CompositeLit)
					found = lit
				}
			}
		}
		return true
	})
	return found
}

// FieldConst returns the constant integer value of field name in lit.
func FieldConst(info *types.Info, lit *ast.CompositeLit, name string) (int64, bool) {
	if lit == nil {
		return 0, false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
			return IntConst(info, kv.Value)
		}
	}
	return 0, false
}

// ExprText is the text of an expression, for comparing receivers and keys.
func ExprText(e ast.Expr) string {
	if e == nil {
		return ""
	}
	return types.ExprString(ast.Unparen(e))
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

// Calls returns the calls inside root in source order, with the classified
// lock operation of each (nil when the call is not one).
func Calls(info *types.Info, kb *signals.Knowledge, root ast.Node) (calls []*ast.CallExpr, ops map[*ast.CallExpr]*Op) {
	ops = make(map[*ast.CallExpr]*Op)
	ast.Inspect(root, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			calls = append(calls, call)
			if op := Classify(info, kb, call); op != nil {
				ops[call] = op
			}
		}
		return true
	})
	return calls, ops
}

// Within reports whether n lies inside [pos, end).
func Within(n ast.Node, pos, end token.Pos) bool {
	return n.Pos() >= pos && n.Pos() < end
}

// Line returns the line of pos.
func Line(fset *token.FileSet, pos token.Pos) int { return fset.Position(pos).Line }

// FmtDuration prints a duration the way people write TTLs.
func FmtDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return (d / time.Second * time.Second).String()
	}
	return d.String()
}

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

// leaseSeconds folds a lease duration in seconds: a constant, or
// int32(d.Seconds()) of a constant time.Duration d (how code converts its
// configured duration for the Azure SDK).
func leaseSeconds(info *types.Info, e ast.Expr) (int64, bool) {
	if v, ok := IntConst(info, e); ok {
		return v, true
	}
	conv, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(conv.Args) != 1 {
		return 0, false
	}
	if tv, ok := info.Types[conv.Fun]; !ok || !tv.IsType() {
		return 0, false
	}
	call, ok := ast.Unparen(conv.Args[0]).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return 0, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Seconds" {
		return 0, false
	}
	fn := Callee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return 0, false
	}
	d, ok := IntConst(info, sel.X)
	if !ok || d%int64(time.Second) != 0 {
		return 0, false
	}
	return d / int64(time.Second), true
}
