package lockrenewal

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// This file reports fixed-TTL locks that leave the function holding them
// (returned to the caller) where nothing can renew them.

// checkEscape reports a redsync mutex returned to the caller behind a type
// that cannot extend it, when nothing in the package extends locks.
func (c *checker) checkEscape(f *lockfacts.Func, h *held, path []ast.Node) {
	if c.anyRenew || h.handle == "" || !(isRedsync(h.op.API.Pkg) || h.op.API.Name == "Obtain") {
		return
	}
	fn, _ := c.info.Defs[f.Decl.Name].(*types.Func)
	if fn == nil {
		return
	}
	results := fn.Type().(*types.Signature).Results()
	// values built from the handle after the acquire: rl := &wrapper{mu: mu}
	names := map[string]bool{h.handle: true}
	ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() < h.op.Call.Pos() || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, r := range as.Rhs {
			if mentionsAny(r, names) {
				names[lockfacts.ExprText(as.Lhs[i])] = true
			}
		}
		return true
	})
	var ret *ast.ReturnStmt
	var via types.Type
	ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
		if ret != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		r, ok := n.(*ast.ReturnStmt)
		if !ok || r.Pos() < h.op.Call.Pos() || len(r.Results) != results.Len() {
			return true
		}
		for i, e := range r.Results {
			if mentionsAny(e, names) {
				ret, via = r, results.At(i).Type()
				return false
			}
		}
		return true
	})
	if ret == nil || canRenew(via) {
		return
	}
	c.p.Reportf(h.op.Call, []analysis.RelatedInformation{rule.Related(ret, "the lock leaves here as %s, which cannot extend it", typeName(via, c.p.Pkg))},
		"%s takes %s with a fixed %s and hands it to the caller as %s, which offers no way to extend it, and nothing in this package extends it: "+
			"whatever the caller runs under the lock (a whole job) is bounded only by the TTL, and when it runs longer another replica "+
			"takes the lock and runs the same work at the same time; extend the mutex while it is held (ExtendContext in a goroutine "+
			"until Unlock) or expose renewal, or use the elector",
		h.op.What(), h.label(), h.ttl, typeName(via, c.p.Pkg))
}

// typeName prints t with package names, not paths (gocron.Lock).
func typeName(t types.Type, self *types.Package) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == self {
			return ""
		}
		return p.Name()
	})
}

// canRenew: the type (or its pointer) has a method that renews a lock.
func canRenew(t types.Type) bool {
	for _, tt := range []types.Type{t, types.NewPointer(t)} {
		ms := types.NewMethodSet(tt)
		for i := 0; i < ms.Len(); i++ {
			name := ms.At(i).Obj().Name()
			for _, pre := range []string{"Extend", "Refresh", "Renew", "KeepAlive", "Touch"} {
				if strings.HasPrefix(name, pre) {
					return true
				}
			}
		}
		if _, ok := t.Underlying().(*types.Interface); ok {
			break
		}
	}
	return false
}

// checkLeaseEscape reports a lock function that acquires a fixed Azure
// lease and returns holding it (its success return, with no release on the
// way and none deferred) when nothing in the package renews a lease: the
// caller's whole critical section is bounded by the lease duration, and it
// has no way to extend it. (A certmagic Locker whose Lock takes a 60 s lease
// while an ACME issuance under it takes minutes.)
func (c *checker) checkLeaseEscape(f *lockfacts.Func, h *held) {
	if c.anyRenew {
		return
	}
	name := strings.ToLower(f.Decl.Name.Name)
	if !lockfacts.HasLockWord(name) && !strings.Contains(name, "acquire") && !strings.Contains(name, "obtain") {
		return
	}
	fn, _ := c.info.Defs[f.Decl.Name].(*types.Func)
	if fn == nil {
		return
	}
	results := fn.Type().(*types.Signature).Results()
	for i := 0; i < results.Len(); i++ {
		if canRenew(results.At(i).Type()) {
			return // the caller gets something it can renew with
		}
	}
	for _, o := range f.Ops {
		if (o.Kind == lockfacts.Unlock || o.Kind == lockfacts.Break) && lockfacts.ExprText(o.Recv) == h.handle {
			return // released in the function (or deferred): not held by the caller
		}
	}
	ret := c.successReturn(f.Decl.Body, h.op.Call, results)
	if ret == nil {
		return
	}
	c.p.Reportf(h.op.Call, []analysis.RelatedInformation{rule.Related(ret, "returns to the caller holding the lease, which nothing renews")},
		"%s takes the %s lease %s for a fixed %s in %s and returns holding it, and nothing in this package renews a lease: "+
			"whatever the caller runs under the lock is bounded by %s, and when it runs longer the lease expires, another replica "+
			"acquires it and runs the same work at the same time; %s until the lock is released, or use the elector (elector/azblobstore)",
		h.op.What(), h.lease, h.handle, lockfacts.FmtDuration(h.ttlDur), f.Decl.Name.Name, lockfacts.FmtDuration(h.ttlDur), h.fix)
}

// successReturn returns the first return after call (not in a function
// literal) that reports success: nil for a final error result, or true for
// a bool result.
func (c *checker) successReturn(body *ast.BlockStmt, call *ast.CallExpr, results *types.Tuple) *ast.ReturnStmt {
	n := results.Len()
	if n == 0 {
		return nil
	}
	last := results.At(n - 1).Type()
	errType := types.Universe.Lookup("error").Type()
	isErr, isBool := types.Identical(last, errType), false
	if b, ok := last.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
		isBool = true
	}
	if !isErr && !isBool {
		return nil
	}
	var found *ast.ReturnStmt
	ast.Inspect(body, func(m ast.Node) bool {
		if found != nil {
			return false
		}
		if _, ok := m.(*ast.FuncLit); ok {
			return false
		}
		r, ok := m.(*ast.ReturnStmt)
		if !ok || r.Pos() < call.End() || len(r.Results) != n {
			return true
		}
		e := ast.Unparen(r.Results[n-1])
		id, ok := e.(*ast.Ident)
		if !ok {
			return true
		}
		if isErr && c.info.Uses[id] == types.Universe.Lookup("nil") || isBool && c.info.Uses[id] == types.Universe.Lookup("true") {
			found = r
		}
		return true
	})
	return found
}
