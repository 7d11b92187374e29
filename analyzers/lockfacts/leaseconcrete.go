package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"
	"time"
	"unicode"
)

// This file recognises a project's own lock client whose lease is a
// concrete type rather than an interface (leaseiface.go): a handle type T
// whose methods send a lock service's acquire RPC with a duration, and an
// exported constructor that takes the lease with a TTL fixed in its body,
//
//	func (c *Client) NewShortLock(key string) *Lock {
//		l := &Lock{key: key, expireAt: time.Now().Add(5 * time.Second)}
//		if err := l.acquire(5 * time.Second); err != nil { return nil }
//		return l
//	}
//	func (l *Lock) Renew(ttl time.Duration) error { return l.acquire(ttl) }
//	func (l *Lock) acquire(ttl time.Duration) error {
//		_, err := l.rpc.AcquireLock(ctx, &pb.LockRequest{Key: l.key, TTLSeconds: int64(ttl.Seconds())})
//		return err
//	}
//
// The constructor hands its caller a lease that the service expires after
// the fixed TTL unless something sends the acquire again: the caller holds
// it unrenewed unless it calls a renewal method of T. What makes the
// duration a TTL and not a wait is the type itself: T has an exported
// method that sends the acquire again with a duration its caller chooses
// (the renewal), and one that sends the service's release; a duration that
// goes into the RPC's wait or timeout field, or only into a context
// deadline, is the time spent trying, not the lease. A constructor that
// starts a goroutine sending the acquire again renews the lease itself and
// is not recognised.

// ConcreteLeases returns the lease facts of the package's exported
// functions and methods: Acquire for a constructor that takes a lease of a
// lease type with a fixed TTL (Result set, FixedTTL the TTL), Renew for a
// lease type's methods that send the acquire again with their duration
// parameter, Unlock for those that send the release.
func ConcreteLeases(pkg *types.Package, info *types.Info, files []*ast.File) map[*types.Func]*LeaseWrapper {
	s := &concreteScan{pkg: pkg, info: info, decls: map[*types.Func]*ast.FuncDecl{}}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			s.decls[fn] = fd
		}
	}
	if len(s.decls) == 0 {
		return nil
	}
	s.flow()
	out := map[*types.Func]*LeaseWrapper{}
	// lease types: exported renewal and release methods
	type leaseType struct{ renew, release []*types.Func }
	types_ := map[*types.Named]*leaseType{}
	for fn := range s.decls {
		recv := recvNamed(fn)
		if recv == nil || !fn.Exported() {
			continue
		}
		lt := types_[recv]
		if lt == nil {
			lt = &leaseType{}
			types_[recv] = lt
		}
		if _, ok := s.ttlParam[fn]; ok {
			lt.renew = append(lt.renew, fn)
		} else if s.releases[fn] && !s.acquires[fn] {
			lt.release = append(lt.release, fn)
		}
	}
	first := func(fns []*types.Func) string {
		var best *types.Func
		for _, f := range fns {
			if best == nil || f.Pos() < best.Pos() {
				best = f
			}
		}
		if best == nil {
			return ""
		}
		return best.Name()
	}
	for fn, fd := range s.decls {
		if !fn.Exported() {
			continue
		}
		t := resultLeaseType(fn)
		lt := types_[t]
		if t == nil || lt == nil {
			continue
		}
		if len(lt.renew) == 0 {
			continue // nothing sends the acquire again: the duration may be a wait
		}
		ttl, ok := s.fixedTTL(fd, t)
		if !ok || s.renewsInGoroutine(fd) {
			continue
		}
		iface := LeaseIface{Name: t.Obj().Pkg().Name() + "." + t.Obj().Name(), Acquire: fn.Name(),
			Renew: first(lt.renew), Release: first(lt.release), Concrete: true}
		out[fn] = &LeaseWrapper{Role: Acquire, TTL: -1, Handle: -1, Result: true, FixedTTL: ttl, Iface: iface}
		for _, r := range lt.renew {
			out[r] = &LeaseWrapper{Role: Renew, TTL: s.ttlParam[r], Handle: -1, Iface: iface}
		}
		for _, r := range lt.release {
			out[r] = &LeaseWrapper{Role: Unlock, TTL: -1, Handle: -1, Iface: iface}
		}
	}
	return out
}

type concreteScan struct {
	pkg   *types.Package
	info  *types.Info
	decls map[*types.Func]*ast.FuncDecl
	// ttlParam: the index of a time.Duration parameter that reaches the
	// lock service's acquire RPC (not as its wait or timeout)
	ttlParam map[*types.Func]int
	// acquires, releases: the function sends the service's acquire, or
	// release, RPC (itself or through functions of the package)
	acquires, releases map[*types.Func]bool
}

// rpcRole says whether fn is a lock service's acquire or release RPC: a
// method of another package outside the standard library whose name has
// the word Lock, Lease, Acquire or Obtain (Unlock or Release for a
// release).
func (s *concreteScan) rpcRole(fn *types.Func) Kind {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || fn.Pkg() == nil || fn.Pkg() == s.pkg || StdPath(fn.Pkg().Path(), s.pkg.Path()) {
		return ""
	}
	words := camelWords(fn.Name())
	for _, w := range words {
		switch w {
		case "Unlock", "Release":
			return Unlock
		}
	}
	for _, w := range words {
		switch w {
		case "Status", "State", "Info", "Owner", "Holder", "Count", "Get", "List", "Find", "Is", "Has":
			return "" // about the lock, not taking it
		}
	}
	for _, w := range words {
		switch w {
		case "Lock", "Lease", "Acquire", "Obtain":
			return Acquire
		}
	}
	return ""
}

// AcquireRPC reports whether fn is a lock service's acquire RPC as the
// concrete-lease scan recognises it (see rpcRole), seen from package self.
func AcquireRPC(fn *types.Func, self *types.Package) bool {
	return (&concreteScan{pkg: self}).rpcRole(fn) == Acquire
}

// WaitName reports whether a request field named name is the time spent
// trying (a wait, timeout, deadline), not the lease.
func WaitName(name string) bool { return waitName(name) }

// flow computes ttlParam, acquires and releases to a fixed point over the
// package's calls (closures included: an RPC sent from a callback the
// function passes to a connection helper is its RPC).
func (s *concreteScan) flow() {
	s.ttlParam = map[*types.Func]int{}
	s.acquires, s.releases = map[*types.Func]bool{}, map[*types.Func]bool{}
	calls := map[*types.Func][]*ast.CallExpr{}
	for fn, fd := range s.decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && Callee(s.info, call) != nil {
				calls[fn] = append(calls[fn], call)
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for fn, cs := range calls {
			sig := fn.Type().(*types.Signature)
			for _, call := range cs {
				g := Callee(s.info, call).Origin()
				role := s.rpcRole(g)
				if (role == Acquire || s.acquires[g]) && !s.acquires[fn] {
					s.acquires[fn], changed = true, true
				}
				if (role == Unlock || s.releases[g]) && !s.releases[fn] {
					s.releases[fn], changed = true, true
				}
				if _, ok := s.ttlParam[fn]; ok {
					continue
				}
				for i := 0; i < sig.Params().Len(); i++ {
					p := sig.Params().At(i)
					if !isDuration(p.Type()) {
						continue
					}
					if role == Acquire && s.mentionedAsTTL(call.Args, p) {
						s.ttlParam[fn], changed = i, true
						break
					}
					if j, ok := s.ttlParam[g]; ok && j < len(call.Args) && s.mentionedAsTTL(call.Args[j:j+1], p) {
						s.ttlParam[fn], changed = i, true
						break
					}
				}
			}
		}
	}
}

// mentionedAsTTL reports whether one of args uses v, other than as the
// value of a field named like a wait (WaitSeconds, Timeout, Deadline).
func (s *concreteScan) mentionedAsTTL(args []ast.Expr, v types.Object) bool {
	return inspectTTLArgs(args, func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && s.info.Uses[id] == v
	})
}

// constTTL reports the constant time.Duration one of args carries as a TTL
// (itself, or inside int64(d.Seconds()) or a request literal's field that
// is not a wait).
func (s *concreteScan) constTTL(args []ast.Expr) (time.Duration, bool) {
	var d time.Duration
	found := inspectTTLArgs(args, func(e ast.Expr) bool {
		if t := s.info.TypeOf(e); t != nil && isDuration(t) {
			if v, ok := IntConst(s.info, e); ok && v > 0 {
				d = time.Duration(v)
				return true
			}
		}
		return false
	})
	return d, found
}

// inspectTTLArgs visits the expressions of args that can carry a TTL (not
// the values of fields named like a wait, not function literals) until
// found returns true, and reports whether it did.
func inspectTTLArgs(args []ast.Expr, found func(ast.Expr) bool) bool {
	done := false
	for _, a := range args {
		ast.Inspect(a, func(n ast.Node) bool {
			if done {
				return false
			}
			switch x := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok && waitName(id.Name) {
					return false
				}
			case *ast.FuncLit:
				return false
			case ast.Expr:
				if found(x) {
					done = true
					return false
				}
			}
			return true
		})
	}
	return done
}

// fixedTTL returns the constant TTL fd takes its lease with: a constant
// duration passed where a function of the package forwards it to the
// acquire RPC, passed to the RPC itself, or set as the lease's expiry
// (time.Now().Add(d) into a field of t named like one) when fd sends the
// acquire.
func (s *concreteScan) fixedTTL(fd *ast.FuncDecl, t *types.Named) (time.Duration, bool) {
	fn := s.info.Defs[fd.Name].(*types.Func)
	if !s.acquires[fn] {
		return 0, false
	}
	var ttl time.Duration
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.CallExpr:
			g := Callee(s.info, x)
			if g == nil {
				return true
			}
			g = g.Origin()
			if s.rpcRole(g) == Acquire {
				ttl, found = s.constTTL(x.Args)
			} else if j, ok := s.ttlParam[g]; ok && j < len(x.Args) {
				ttl, found = s.constTTL(x.Args[j : j+1])
			}
		case *ast.CompositeLit:
			if tv := s.info.TypeOf(x); tv == nil || !types.Identical(tv, t) {
				return true
			}
			for _, e := range x.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if id, ok := kv.Key.(*ast.Ident); !ok || !expiryName(id.Name) {
					continue
				}
				if d, ok := s.nowAdd(kv.Value); ok {
					ttl, found = d, true
				}
			}
		}
		return true
	})
	return ttl, found
}

// nowAdd returns d of time.Now().Add(d) (or of its UnixNano, Unix,
// UnixMilli) for a constant d.
func (s *concreteScan) nowAdd(e ast.Expr) (time.Duration, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return 0, false
	}
	fn := Callee(s.info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return 0, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return 0, false
	}
	switch fn.Name() {
	case "UnixNano", "Unix", "UnixMilli", "UnixMicro":
		return s.nowAdd(sel.X)
	case "Add":
		inner, ok := ast.Unparen(sel.X).(*ast.CallExpr)
		if g := Callee(s.info, inner); !ok || g == nil || g.Pkg() == nil || g.Pkg().Path() != "time" || g.Name() != "Now" || len(call.Args) != 1 {
			return 0, false
		}
		v, ok := IntConst(s.info, call.Args[0])
		return time.Duration(v), ok && v > 0
	}
	return 0, false
}

// renewsInGoroutine: fd starts a goroutine (a go statement, or a function
// literal it hands to time.AfterFunc) that sends the acquire again.
func (s *concreteScan) renewsInGoroutine(fd *ast.FuncDecl) bool {
	found := false
	reaches := func(n ast.Node) bool {
		hit := false
		ast.Inspect(n, func(m ast.Node) bool {
			if call, ok := m.(*ast.CallExpr); ok && !hit {
				if g := Callee(s.info, call); g != nil && (s.acquires[g.Origin()] || s.rpcRole(g.Origin()) == Acquire) {
					hit = true
				}
			}
			return !hit
		})
		return hit
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.GoStmt:
			found = reaches(x.Call)
			return false
		case *ast.CallExpr:
			if g := Callee(s.info, x); g != nil && g.Pkg() != nil && g.Pkg().Path() == "time" && g.Name() == "AfterFunc" {
				found = reaches(x)
				return false
			}
		}
		return true
	})
	return found
}

// recvNamed returns the named type of fn's receiver in its package, or nil.
func recvNamed(fn *types.Func) *types.Named {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return nil
	}
	return pointee(sig.Recv().Type())
}

func pointee(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// resultLeaseType returns the struct type T when fn returns *T of its own
// package (among its results), or nil.
func resultLeaseType(fn *types.Func) *types.Named {
	res := fn.Type().(*types.Signature).Results()
	for i := 0; i < res.Len(); i++ {
		p, ok := res.At(i).Type().(*types.Pointer)
		if !ok {
			continue
		}
		if n := pointee(p); n != nil && n.Obj().Pkg() == fn.Pkg() {
			if _, ok := n.Underlying().(*types.Struct); ok {
				return n
			}
		}
	}
	return nil
}

// waitName: a request field that is the time spent trying, not the lease.
func waitName(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"wait", "timeout", "deadline", "block", "poll", "retry"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// expiryName: a field holding when the lease ends (expireAt, ExpiresAtNs,
// leaseUntil, ttlEnd).
func expiryName(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "expir") || strings.Contains(l, "leaseuntil") || strings.HasPrefix(l, "ttl")
}

// camelWords splits DistributedLock into Distributed, Lock.
func camelWords(name string) []string {
	var words []string
	start := 0
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			words = append(words, capitalize(name[start:i]))
			start = i
		}
	}
	return append(words, capitalize(name[start:]))
}

func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// StdPath reports whether path looks like a standard library package: no
// dot in its first element, unless it shares that element with self (the
// package analyzed, in a module path without a dot).
func StdPath(path, self string) bool {
	first, _, _ := strings.Cut(path, "/")
	mine, _, _ := strings.Cut(self, "/")
	return !strings.Contains(first, ".") && first != mine
}
