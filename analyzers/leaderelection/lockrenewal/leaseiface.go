package lockrenewal

import (
	"go/ast"
	"go/types"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// This file brings a project's own lease interface (lockfacts.LeaseShapes:
// an acquire and a renewal taking a time.Duration, and a release) into the
// rule: its calls, and those of the functions that forward to it, become
// lock operations of the function they are in. The wrappers are exported
// as facts, so that a call through a wrapper of another package
// (session.ObtainLock(ctx, 2*time.Second) forwarding to the Lock field's
// Obtain) is that package's acquire.

// leaseOps finds the lease operations of every function of files, and
// exports the package's wrappers. Calls the knowledge base classifies are
// left to it.
func (c *checker) leaseOps(files []*ast.File) map[*ast.FuncDecl][]*lockfacts.Op {
	shapes := lockfacts.NewLeaseShapes(c.p.Pkg)
	// a concrete lock handle's constructor, renewal and release
	// (leaseconcrete.go) are wrappers of the package too
	local := lockfacts.ConcreteLeases(c.p.Pkg, c.info, files)
	if local == nil {
		local = map[*types.Func]*lockfacts.LeaseWrapper{}
	}
	hasWrappers := map[*types.Package]bool{}
	wrapper := func(fn *types.Func) *lockfacts.LeaseWrapper {
		if w := local[fn]; w != nil {
			return w
		}
		pkg := fn.Pkg()
		if pkg == nil || pkg == c.p.Pkg {
			return nil
		}
		has, ok := hasWrappers[pkg]
		if !ok {
			has = c.p.ImportPackageFact(pkg, new(lockfacts.HasLeaseWrappers))
			hasWrappers[pkg] = has
		}
		if !has {
			return nil
		}
		w := new(lockfacts.LeaseWrapper)
		if !c.p.ImportObjectFact(fn, w) {
			return nil
		}
		return w
	}
	// the calls of each function with a static callee, read once
	calls := map[*ast.FuncDecl][]*ast.CallExpr{}
	decls := lockfacts.Funcs(files)
	for _, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && lockfacts.Callee(c.info, call) != nil {
				calls[fd] = append(calls[fd], call)
			}
			return true
		})
	}
	// calls the knowledge base classifies are its own; asked only of the
	// few calls that look like lease operations
	kb := map[*ast.CallExpr]bool{}
	known := func(call *ast.CallExpr) bool {
		v, ok := kb[call]
		if !ok {
			v = lockfacts.Classify(c.info, c.p.KB, call) != nil
			kb[call] = v
		}
		return v
	}
	ops := map[*ast.FuncDecl][]*lockfacts.Op{}
	// wrappers of wrappers: until no function becomes one
	for changed := true; changed; {
		changed = false
		for _, fd := range decls {
			var found []*lockfacts.Op
			for _, call := range calls[fd] {
				if op := lockfacts.LeaseOp(c.info, shapes, wrapper, call); op != nil && !known(call) {
					if op.Kind == lockfacts.Acquire && op.Lease.Concrete && op.Recv == nil {
						op.Recv = assignedExpr(fd.Body, call)
					}
					found = append(found, op)
				}
			}
			ops[fd] = found
			fn, _ := c.info.Defs[fd.Name].(*types.Func)
			if fn == nil || local[fn] != nil || len(found) == 0 {
				continue
			}
			if w := lockfacts.LeaseWrapperOf(c.info, fd, found); w != nil {
				local[fn] = w
				changed = true
			}
		}
	}
	for fn, w := range local {
		c.p.ExportObjectFact(fn, w)
	}
	if len(local) > 0 {
		c.p.ExportPackageFact(new(lockfacts.HasLeaseWrappers))
	}
	for fd, o := range ops {
		if len(o) == 0 {
			delete(ops, fd)
		}
	}
	return ops
}

// assignedExpr returns what the call's (first) result is assigned to in
// body, or nil: the handle a constructor returns.
func assignedExpr(body *ast.BlockStmt, call *ast.CallExpr) ast.Expr {
	var out ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && ast.Unparen(s.Rhs[0]) == call && len(s.Lhs) > 0 {
				if id, ok := s.Lhs[0].(*ast.Ident); !ok || id.Name != "_" {
					out = s.Lhs[0]
				}
			}
		case *ast.ValueSpec:
			if len(s.Values) == 1 && ast.Unparen(s.Values[0]) == call && len(s.Names) > 0 && s.Names[0].Name != "_" {
				out = s.Names[0]
			}
		}
		return true
	})
	return out
}

// mergeOps adds each function's lease operations to its ops, in source
// order.
func mergeOps(f *lockfacts.Func, extra []*lockfacts.Op) {
	if len(extra) == 0 {
		return
	}
	merged := make([]*lockfacts.Op, 0, len(f.Ops)+len(extra))
	i, j := 0, 0
	for i < len(f.Ops) || j < len(extra) {
		if j == len(extra) || i < len(f.Ops) && f.Ops[i].Call.Pos() <= extra[j].Call.Pos() {
			merged = append(merged, f.Ops[i])
			i++
		} else {
			merged = append(merged, extra[j])
			j++
		}
	}
	f.Ops = merged
}

// isLease: the held lock is taken through a project's lease interface.
func (h *held) isLease() bool { return h.op.Lease != nil }
