package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"
)

// This file carries the lock rows a function inserts or deletes across
// packages. A project often keeps its queries in a package of their own
// (a store with InsertLock and DeleteLock methods, behind an interface)
// and takes and releases the lock from another, so the rows of the lock
// are written one call away, in a package the release's package imports.
// Only a function's own statements are carried, one call deep: a row
// written further down is too far from the acquire or release to say it
// is the lock's.

// RowFact is the fact that a function (or an interface method whose only
// implementation in its package is known) inserts or deletes rows.
type RowFact struct {
	Ops []RowFactOp
	// Impl is the implementing type ("pkg/path.store") when the fact is on
	// an interface method; "" on a function or concrete method.
	Impl string
}

// RowFactOp is a RowOp without its call, which is in another package.
type RowFactOp struct {
	Verb, Table, Label, What        string
	Named, Expiry, Keyed, OwnerPred bool
	Unique, Upsert                  bool
}

// AFact marks RowFact as an analysis fact.
func (*RowFact) AFact() {}

func (f *RowFact) String() string {
	var b []string
	for _, o := range f.Ops {
		b = append(b, o.Verb+" "+o.Label)
	}
	return "rows: " + strings.Join(b, ", ")
}

// NewRowFact makes the fact of ops, the rows of fn's own body, or returns
// nil when none is an insert or a delete. A table named by an expression
// (q.cfg.LockTable) is the same table only within one receiver type, so
// its key carries fn's package and receiver: two methods of one store
// match, two stores do not.
func NewRowFact(fn *types.Func, ops []*RowOp) *RowFact {
	f := &RowFact{}
	scope := fn.Pkg().Path() + "." + recvOf(fn)
	for _, op := range ops {
		if op.Verb != "insert" && op.Verb != "delete" || op.Doc {
			continue
		}
		o := RowFactOp{Verb: op.Verb, Table: op.Table, Label: op.Label, What: op.What, Named: op.Named,
			Expiry: op.Expiry, Keyed: op.Keyed, OwnerPred: op.OwnerPred, Unique: op.Unique, Upsert: op.Upsert}
		if op.Named {
			o.Table += "\x00" + scope
		}
		f.Ops = append(f.Ops, o)
	}
	if len(f.Ops) == 0 {
		return nil
	}
	return f
}

func recvOf(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// RowOpsAt returns the fact's rows as written by call, the call of the
// function in the package being analyzed: the finding is reported there.
// The message names the callee (DeleteLock) and the table as its package
// writes it.
func (f *RowFact) RowOpsAt(call *ast.CallExpr, callee *types.Func) []*RowOp {
	var out []*RowOp
	for _, o := range f.Ops {
		label := o.Label
		if o.Named {
			label += " (in " + callee.Pkg().Name() + "." + callee.Name() + ")"
		}
		out = append(out, &RowOp{Call: call, What: callee.Name(), Verb: o.Verb, Table: o.Table, Label: label,
			Named: o.Named, Expiry: o.Expiry, Keyed: o.Keyed, OwnerPred: o.OwnerPred, Unique: o.Unique, Upsert: o.Upsert})
	}
	return out
}

// SoleImpl returns the only named type of pkg that implements iface (as T
// or *T), or nil when there is none or more than one.
func SoleImpl(pkg *types.Package, iface *types.Interface) *types.Named {
	var found *types.Named
	for _, n := range Implementers(pkg, iface) {
		if found != nil {
			return nil
		}
		found = n
	}
	return found
}

// Implementers returns the named non-interface types of pkg that
// implement iface (as T or *T). An empty interface has none: everything
// implements it, so no implementation is known.
func Implementers(pkg *types.Package, iface *types.Interface) []*types.Named {
	if iface.NumMethods() == 0 {
		return nil
	}
	var out []*types.Named
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 {
			continue
		}
		if _, isIface := n.Underlying().(*types.Interface); isIface {
			continue
		}
		if types.Implements(n, iface) || types.Implements(types.NewPointer(n), iface) {
			out = append(out, n)
		}
	}
	return out
}

// TypeKey names a named type across packages: "pkg/path.Name".
func TypeKey(n *types.Named) string {
	if n.Obj().Pkg() == nil {
		return n.Obj().Name()
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}
