package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/gatesift/gatesift-vet/signals"
)

// CASLock is a lock a project builds from a key of a store's
// compare-and-swap: an acquire-named function (Lock, Acquire) that swaps
// the key from empty to its value, which succeeds only when nobody holds
// it, and a release-named function of the same type that swaps it back to
// empty or deletes the key. The store is a client's (its package reaches
// the network), not one the knowledge base knows (those have their own
// rules), and not the process's memory (sync/atomic, sync.Map, a map).
type CASLock struct {
	Recv             string
	Acquire, Release *ast.FuncDecl
	Swap             *CAS          // the swap from empty, in the acquire or a function it calls
	Back             *ast.CallExpr // the release's swap back or delete
	// Expiry: something may end the held value: the swap method takes
	// more than key and values (a TTL, options, a session); or the acquire
	// also swaps from a value it read (a takeover of a stale holder).
	Expiry bool
}

// CAS is one compare-and-swap call on a key.
type CAS struct {
	Call          *ast.CallExpr
	Method        *types.Func
	Key, Old, New ast.Expr
	// FromEmpty: Old is the constant "" (or nil); ToEmpty: New is.
	FromEmpty, ToEmpty bool
	// Bound: the method takes more than the key and the values (a
	// duration, a time, options, a session or lease): the value may end.
	Bound bool
}

// CASLocks finds the compare-and-swap locks of package self.
func CASLocks(self *types.Package, info *types.Info, kb *signals.Knowledge, files []*ast.File) []*CASLock {
	pairs := lockPairs(files)
	if len(pairs) == 0 {
		return nil
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			decls[fn] = fd
		}
	}
	remote := remoteImports{}
	own := map[*ast.FuncDecl]*casCalls{}
	callsOf := func(fd *ast.FuncDecl) *casCalls {
		if c := own[fd]; c != nil {
			return c
		}
		c := &casCalls{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := Callee(info, call)
			if fn == nil || kb.Match(signals.Locks, fn) != nil || !remote.store(self, info, decls, fn) {
				return true
			}
			if cas := readCAS(info, call, fn); cas != nil {
				c.cas = append(c.cas, cas)
			} else if deleteName(fn.Name()) {
				c.deletes = append(c.deletes, call)
			}
			return true
		})
		own[fd] = c
		return c
	}
	var out []*CASLock
	for _, g := range pairs {
		recv := g.recv
		for _, a := range g.acquires {
			var swaps []*CAS
			takeover := false
			for _, h := range Reached(info, decls, a, 2) {
				for _, c := range callsOf(h).cas {
					if c.FromEmpty && !c.ToEmpty {
						swaps = append(swaps, c)
					} else if !c.FromEmpty {
						takeover = true // swaps from a value it read: a stale holder's
					}
				}
			}
			for _, s := range swaps {
				back := releaseOf(info, decls, g.releases, s, callsOf)
				if back == nil {
					continue
				}
				out = append(out, &CASLock{Recv: recv, Acquire: a, Release: back.fd, Swap: s, Back: back.call,
					Expiry: s.Bound || takeover})
			}
		}
	}
	return out
}

// casCalls are the store calls of one function body.
type casCalls struct {
	cas     []*CAS
	deletes []*ast.CallExpr
}

type releaseCall struct {
	fd   *ast.FuncDecl
	call *ast.CallExpr
}

// releaseOf finds, among the release functions, a swap of s's key back to
// empty (by the same method, or on the same client), or a delete of the key
// on the same client.
func releaseOf(info *types.Info, decls map[*types.Func]*ast.FuncDecl, releases []*ast.FuncDecl, s *CAS, callsOf func(*ast.FuncDecl) *casCalls) *releaseCall {
	key := ExprText(s.Key)
	recv := casRecv(s.Call)
	for _, r := range releases {
		for _, h := range Reached(info, decls, r, 2) {
			c := callsOf(h)
			for _, b := range c.cas {
				if (b.Method == s.Method || casRecv(b.Call) == recv && recv != "") && b.ToEmpty && !b.FromEmpty && ExprText(b.Key) == key {
					return &releaseCall{r, b.Call}
				}
			}
			for _, d := range c.deletes {
				if casRecv(d) == recv && recv != "" && len(d.Args) > 0 && keyArg(info, d) == key {
					return &releaseCall{r, d}
				}
			}
		}
	}
	return nil
}

func casRecv(call *ast.CallExpr) string {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return ExprText(sel.X)
	}
	return ""
}

// keyArg: the first argument that is not a context.
func keyArg(info *types.Info, call *ast.CallExpr) string {
	for _, a := range call.Args {
		if !isContext(info.TypeOf(a)) {
			return ExprText(a)
		}
	}
	return ""
}

// readCAS reads a call of a compare-and-swap method: named CompareAndSwap,
// CompareAndSet or CAS (LockCompareAndSwap, CASValue), taking a key and
// then an old and a new value of one type (string or []byte), after an
// optional context, and answering with a bool (swapped) among its results.
func readCAS(info *types.Info, call *ast.CallExpr, fn *types.Func) *CAS {
	if !casName(fn.Name()) || call.Ellipsis.IsValid() {
		return nil
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return nil
	}
	params := sig.Params()
	first := 0
	if params.Len() > 0 && isContext(params.At(0).Type()) {
		first = 1
	}
	if params.Len() < first+3 || len(call.Args) < first+3 {
		return nil
	}
	kt, ot, nt := params.At(first).Type(), params.At(first+1).Type(), params.At(first+2).Type()
	if !keyType(kt) || !types.Identical(ot, nt) || !keyType(ot) {
		return nil
	}
	answers := false
	for i := 0; i < sig.Results().Len(); i++ {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			answers = true
		}
	}
	if !answers {
		return nil
	}
	c := &CAS{Call: call, Method: fn, Key: call.Args[first], Old: call.Args[first+1], New: call.Args[first+2],
		Bound: sig.Variadic() || params.Len() > first+3}
	c.FromEmpty = emptyValue(info, c.Old)
	c.ToEmpty = emptyValue(info, c.New)
	return c
}

func casName(name string) bool {
	return strings.Contains(name, "CompareAndSwap") || strings.Contains(name, "CompareAndSet") ||
		strings.HasPrefix(name, "CAS") || strings.HasSuffix(name, "CAS")
}

// deleteName: Delete, DeleteKey, Del, Remove (not Deleted, Removal).
func deleteName(name string) bool {
	return verbName(name, "delete", "del", "remove")
}

func keyType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.String
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	return false
}

func emptyValue(info *types.Info, e ast.Expr) bool {
	if s, ok := StringConst(info, e); ok {
		return s == ""
	}
	return info.Types[e].IsNil()
}

func isContext(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "context" && named.Obj().Name() == "Context"
}

// remoteImports memoizes, per package, whether it reaches the network.
type remoteImports map[*types.Package]bool

// store reports whether fn is an operation of a store outside the process:
// a function or method of another package, not the standard library's,
// whose package imports the network (net, directly or through its
// imports); or a function of self whose body calls such a function. An
// interface method counts by its interface's package the same way.
func (r remoteImports) store(self *types.Package, info *types.Info, decls map[*types.Func]*ast.FuncDecl, fn *types.Func) bool {
	pkg := fn.Pkg()
	if pkg == nil {
		return false
	}
	if pkg != self {
		return !stdlib(pkg.Path()) && r.reaches(pkg, 0)
	}
	fd := decls[fn]
	if fd == nil {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !found {
			if g := Callee(info, call); g != nil && g.Pkg() != nil && g.Pkg() != self {
				p := g.Pkg().Path()
				found = p == "net" || strings.HasPrefix(p, "net/") || !stdlib(p) && r.reaches(g.Pkg(), 0)
			}
		}
		return !found
	})
	return found
}

func (r remoteImports) reaches(pkg *types.Package, depth int) bool {
	if v, ok := r[pkg]; ok {
		return v
	}
	r[pkg] = false // cycles and depth: not proven
	if depth > 6 {
		delete(r, pkg)
		return false
	}
	for _, imp := range pkg.Imports() {
		p := imp.Path()
		if p == "net" || strings.HasPrefix(p, "net/") || !stdlib(p) && r.reaches(imp, depth+1) {
			r[pkg] = true
			return true
		}
	}
	return false
}

// stdlib: a standard-library import path (no dot in its first element).
func stdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
