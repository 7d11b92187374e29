package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Work partitioned by ownership: every replica runs the periodic job, but
// each acts only on the items it owns, decided by looking the item's key
// up (a hash ring, a shard map, a placement table) and comparing the
// owner found with the instance's own identity, or by a membership
// predicate over that identity (ring.Owns(key, self)). The if that tests
// it either leaves when this instance is not the owner (continue,
// return) or holds the work in its body when it is. Such work is
// coordinated by the partitioning: two replicas never own the same item.
//
// The identity is the one the per-replica key logic recognises (flow.go:
// os.Hostname, a pod-name variable, a field initialised from them). The
// other side of the comparison must be a lookup's result: a value read
// from a call that is given a key, or from a map indexed by one. A
// comparison with a constant, with the item itself, or with a configured
// value picks no owner per item and coordinates nothing.

// ownershipGate returns, for an if statement, what the ownership test it
// makes is, when the if gates work by it: its body leaves when the
// instance does not own the item, or holds effects when it does. "" when
// the if is no ownership gate.
func (r *Result) ownershipGate(n *ast.IfStmt, bodyHasEffects bool) string {
	desc, owns := r.ownershipTest(n.Cond, 0)
	switch {
	case desc == "":
		return ""
	case owns && bodyHasEffects, !owns && returnsEarly(n.Body):
		return desc
	}
	return ""
}

// ownershipTest tells whether cond tests the instance's ownership of an
// item, and whether it is true when the instance owns it (owns) or when it
// does not (!owns).
func (r *Result) ownershipTest(cond ast.Expr, depth int) (desc string, owns bool) {
	if depth > maxDepth {
		return "", false
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			desc, owns := r.ownershipTest(c.X, depth+1)
			return desc, !owns
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.EQL, token.NEQ:
			fl := r.flow()
			b := fl.binops[c.OpPos]
			if b == nil {
				return "", false
			}
			if desc := fl.ownerComparison(b); desc != "" {
				return desc, c.Op == token.EQL
			}
		case token.LAND:
			// owns && more: true only when the instance owns the item.
			for _, x := range []ast.Expr{c.X, c.Y} {
				if desc, owns := r.ownershipTest(x, depth+1); desc != "" && owns {
					return desc, true
				}
			}
		case token.LOR:
			// !owns || more: true whenever the instance does not own it.
			for _, x := range []ast.Expr{c.X, c.Y} {
				if desc, owns := r.ownershipTest(x, depth+1); desc != "" && !owns {
					return desc, false
				}
			}
		}
	case *ast.CallExpr:
		fl := r.flow()
		cc := fl.common(c)
		if cc == nil || fl.values[cc] == nil {
			return "", false
		}
		if desc := fl.ownershipPredicate(fl.values[cc], 0); desc != "" {
			return desc, true
		}
	case *ast.Ident:
		// owned := owner == self; if !owned { continue }
		if rhs := r.onlyAssignment(c); rhs != nil {
			return r.ownershipTest(rhs, depth+1)
		}
	}
	return "", false
}

// onlyAssignment returns the one expression assigned to the local variable
// id names, in its declaring function, or nil when there are several or
// none.
func (r *Result) onlyAssignment(id *ast.Ident) ast.Expr {
	v, ok := r.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	body := r.enclosingBody(id)
	if body == nil {
		return nil
	}
	var found ast.Expr
	count := 0
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			if l, ok := lhs.(*ast.Ident); ok && r.pass.TypesInfo.ObjectOf(l) == v {
				count++
				if len(as.Lhs) == len(as.Rhs) {
					found = as.Rhs[i]
				} else if len(as.Rhs) == 1 && i == 0 {
					found = as.Rhs[0] // owned, err := r.owns(key): the call's first result
				}
			}
		}
		return true
	})
	if count != 1 {
		return nil
	}
	return found
}

// ownerComparison: one side of b is the instance's identity, the other a
// lookup's result. It names the two.
func (fl *flow) ownerComparison(b *ssa.BinOp) string {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return ""
	}
	for _, sides := range [][2]ssa.Value{{b.X, b.Y}, {b.Y, b.X}} {
		id := fl.identity(sides[0], 0)
		if id == "" || fl.identity(sides[1], 0) != "" {
			continue
		}
		if look := fl.lookupResult(sides[1], 0); look != "" {
			return look + " compared with " + id
		}
	}
	return ""
}

// lookupResult names the lookup a value was read from: the result of a
// call given a non-constant argument (ring.Get(hash), shards.Owner(key)),
// or a map indexed by a non-constant key (placement[key]), reached through
// field reads, indexing and extraction of its results, and through a local
// variable it was stored in.
func (fl *flow) lookupResult(v ssa.Value, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	switch v := v.(type) {
	case *ssa.Field:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.FieldAddr:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.Index:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.IndexAddr:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return fl.lookupResult(v.X, depth+1)
		}
	case *ssa.Extract:
		return fl.lookupResult(v.Tuple, depth+1)
	case *ssa.Alloc:
		// A local whose address is taken (rs.Instances[0].Addr): what is
		// stored into it, every store a lookup's result.
		look := ""
		for _, st := range fl.stores[v] {
			if look = fl.lookupResult(st, depth+1); look == "" {
				return ""
			}
		}
		return look
	case *ssa.ChangeType:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.MakeInterface:
		return fl.lookupResult(v.X, depth+1)
	case *ssa.Lookup:
		if _, isConst := v.Index.(*ssa.Const); !isConst {
			if _, isMap := v.X.Type().Underlying().(*types.Map); isMap {
				return "a table lookup"
			}
		}
	case *ssa.Call:
		if keyedCall(&v.Call) {
			return "the lookup " + calleeName(&v.Call)
		}
	}
	return ""
}

// keyedCall: the call is given an argument that is not constant (the
// receiver left out): a lookup for a key.
func keyedCall(c *ssa.CallCommon) bool {
	args := c.Args
	if !c.IsInvoke() && c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	for _, a := range args {
		if _, isConst := a.(*ssa.Const); !isConst {
			return true
		}
	}
	return false
}

func calleeName(c *ssa.CallCommon) string {
	switch {
	case c.IsInvoke():
		return c.Method.Name() + "()"
	case c.StaticCallee() != nil:
		return c.StaticCallee().Name() + "()"
	}
	return "call"
}

// ownershipPredicate: the boolean call v is a membership predicate over
// the instance's identity for an item (ring.Owns(key, self): an identity
// argument and another, non-constant one), or a function of this package
// whose every true result is an ownership comparison (a helper that looks
// the item up and compares the owner with the instance).
func (fl *flow) ownershipPredicate(v *ssa.Call, depth int) string {
	if depth > 2 {
		return ""
	}
	c := &v.Call
	res := c.Signature().Results()
	if res.Len() == 0 || !types.Identical(res.At(0).Type().Underlying(), types.Typ[types.Bool]) {
		return ""
	}
	args := c.Args
	if !c.IsInvoke() && c.Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	id, key := "", false
	for _, a := range args {
		if x := fl.identity(a, 0); x != "" {
			id = x
		} else if _, isConst := a.(*ssa.Const); !isConst {
			key = true
		}
	}
	if id != "" && key {
		return "the membership test " + calleeName(c) + " over " + id
	}
	callee := c.StaticCallee()
	if callee == nil || callee.Blocks == nil {
		return ""
	}
	desc := ""
	for _, b := range callee.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		if k, isConst := ret.Results[0].(*ssa.Const); isConst && k.Value != nil && k.Value.ExactString() == "false" {
			continue
		}
		d := fl.ownershipResult(ret.Results[0], depth)
		if d == "" {
			d = fl.ownerBranch(b)
		}
		if d == "" {
			return "" // true on a path that is not an ownership test
		}
		desc = d
	}
	if desc == "" {
		return ""
	}
	return desc + " (in " + callee.Name() + ")"
}

// ownershipResult: a returned boolean is an ownership comparison, or the
// answer of another ownership predicate.
func (fl *flow) ownershipResult(v ssa.Value, depth int) string {
	switch v := v.(type) {
	case *ssa.BinOp:
		if v.Op == token.EQL {
			return fl.ownerComparison(v)
		}
	case *ssa.Call:
		return fl.ownershipPredicate(v, depth+1)
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok && v.Index == 0 {
			return fl.ownershipPredicate(call, depth+1)
		}
	}
	return ""
}

// ownerBranch: block b runs only where an ownership comparison of its
// function held (if owner == self { return true, nil }): the branch taken
// when the comparison says the instance owns the item dominates b.
func (fl *flow) ownerBranch(b *ssa.BasicBlock) string {
	for _, ifb := range b.Parent().Blocks {
		if len(ifb.Instrs) == 0 || len(ifb.Succs) != 2 {
			continue
		}
		branch, ok := ifb.Instrs[len(ifb.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cmp, ok := branch.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		desc := fl.ownerComparison(cmp)
		if desc == "" {
			continue
		}
		owner := ifb.Succs[0] // the true edge of owner == self
		if cmp.Op == token.NEQ {
			owner = ifb.Succs[1]
		}
		if len(owner.Preds) == 1 && owner.Dominates(b) {
			return desc
		}
	}
	return ""
}
