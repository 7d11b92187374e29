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

// pendingIf is an if seen by Scan, with the index of the first event after
// it and the statements after it in its block.
type pendingIf struct {
	stmt *ast.IfStmt
	at   int
	rest blockRest
}

// blockRest: the statements of a block after one of them, and the block's
// end.
type blockRest struct {
	stmts []ast.Stmt
	end   token.Pos
}

func markBlock(rests map[*ast.IfStmt]blockRest, list []ast.Stmt, end token.Pos) {
	for i, s := range list {
		if ifs, ok := s.(*ast.IfStmt); ok {
			rests[ifs] = blockRest{stmts: list[i+1:], end: end}
		}
	}
}

// ownershipEvents inserts a coordination event before the effects an
// ownership test gates: effects in the body of an if that holds the work
// for the owner, or after an if that leaves for the non-owner; and the
// effects keyed by a collection of owned items (ownedCollection). The test
// is read (and the SSA form built) only for ifs that gate effects or fill
// a collection that later effects use.
func (r *Result) ownershipEvents(out *Scanned, ifs []pendingIf, ranges []*ast.RangeStmt) {
	for k := len(ifs) - 1; k >= 0; k-- {
		p := ifs[k]
		inBody, after := false, false
		for _, ev := range out.Events[p.at:] {
			if len(ev.Effects) == 0 || ev.Call == nil {
				continue
			}
			pos := ev.Call.Pos()
			inBody = inBody || p.stmt.Body.Pos() <= pos && pos < p.stmt.Body.End()
			after = after || p.stmt.End() <= pos && pos < p.rest.end
		}
		if inBody || after && returnsEarly(p.stmt.Body) {
			if desc := r.ownershipGate(p.stmt, inBody); desc != "" {
				ev := Event{Coordination: "partitioned by ownership: " + desc, Node: p.stmt.Cond}
				out.Events = append(out.Events[:p.at], append([]Event{ev}, out.Events[p.at:]...)...)
				continue
			}
		}
		r.ownedCollectionEvent(out, p, ranges)
	}
}

// ownedCollectionEvent: the if fills a local collection with the items the
// instance owns (appends in its body when it owns, or after it when it
// leaves for the non-owner), nothing else is ever added to it, and later
// effects are keyed by it (an argument mentions it, or the effect runs in a
// range over it): those effects act on owned items only, and a
// coordination event goes before the first of them.
func (r *Result) ownedCollectionEvent(out *Scanned, p pendingIf, ranges []*ast.RangeStmt) {
	var region []ast.Stmt
	var regionEnd token.Pos
	switch {
	case returnsEarly(p.stmt.Body):
		region, regionEnd = p.rest.stmts, p.rest.end
	default:
		region, regionEnd = p.stmt.Body.List, p.stmt.Body.End()
	}
	coll := r.appendTarget(region)
	if coll == nil {
		return
	}
	first := -1
	for i := p.at; i < len(out.Events); i++ {
		ev := out.Events[i]
		if len(ev.Effects) == 0 || ev.Call == nil || ev.Call.Pos() < regionEnd {
			continue
		}
		if r.keyedByCollection(ev.Call, coll, ranges) {
			first = i
			break
		}
	}
	if first < 0 || !r.onlyFilledIn(coll, p.stmt.Pos(), regionEnd) {
		return
	}
	desc, owns := r.ownershipTest(p.stmt.Cond, 0)
	if desc == "" || owns == returnsEarly(p.stmt.Body) {
		return // no ownership test, or one whose branch appends the items not owned
	}
	ev := Event{Coordination: "partitioned by ownership: only owned items are collected into " + coll.Name() + ", " + desc, Node: p.stmt.Cond}
	out.Events = append(out.Events[:first], append([]Event{ev}, out.Events[first:]...)...)
}

// appendTarget: the local variable that a statement of the region
// appends to (x = append(x, item)), or nil.
func (r *Result) appendTarget(region []ast.Stmt) *types.Var {
	for _, s := range region {
		if v := r.appendedVar(s); v != nil {
			return v
		}
	}
	return nil
}

// appendedVar: s is x = append(x, ...) with x a local variable.
func (r *Result) appendedVar(s ast.Node) *types.Var {
	as, ok := s.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); !ok || id.Name != "append" || r.pass.TypesInfo.Uses[id] != types.Universe.Lookup("append") {
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := r.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

// onlyFilledIn: every assignment to coll in its function other than the
// appends between from and to starts it empty (var, nil, make, an empty
// literal), so the collection holds nothing the gate did not let through.
func (r *Result) onlyFilledIn(coll *types.Var, from, to token.Pos) bool {
	body := r.enclosingBodyAt(coll.Pos())
	if body == nil {
		return false
	}
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		as, isAssign := n.(*ast.AssignStmt)
		if !isAssign || !ok {
			return ok
		}
		for i, lhs := range as.Lhs {
			id, isIdent := lhs.(*ast.Ident)
			if !isIdent || r.pass.TypesInfo.ObjectOf(id) != coll {
				continue
			}
			if r.appendedVar(as) == coll && from <= as.Pos() && as.End() <= to {
				continue
			}
			if i >= len(as.Rhs) || !emptyStart(as.Rhs[i]) {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// emptyStart: nil, make(...), or an empty composite literal.
func emptyStart(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name == "nil"
	case *ast.CompositeLit:
		return len(e.Elts) == 0
	case *ast.CallExpr:
		id, ok := ast.Unparen(e.Fun).(*ast.Ident)
		return ok && id.Name == "make"
	}
	return false
}

// keyedByCollection: an argument of call mentions coll, or call runs in
// the body of a range over it.
func (r *Result) keyedByCollection(call *ast.CallExpr, coll *types.Var, ranges []*ast.RangeStmt) bool {
	mentions := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && r.pass.TypesInfo.ObjectOf(id) == coll {
				found = true
			}
			return !found
		})
		return found
	}
	for _, a := range call.Args {
		if mentions(a) {
			return true
		}
	}
	for _, rg := range ranges {
		if rg.Body.Pos() <= call.Pos() && call.End() <= rg.Body.End() && mentions(rg.X) {
			return true
		}
	}
	return false
}

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
			if r.constantOrNil(c.X) || r.constantOrNil(c.Y) {
				return "", false // err != nil, owner == "": no identity on one side; keeps SSA unbuilt
			}
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
		if t := r.pass.TypesInfo.TypeOf(c); t == nil || !returnsBool(t) {
			return "", false
		}
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

// enclosingBodyAt returns the body of the innermost function around pos.
func (r *Result) enclosingBodyAt(pos token.Pos) *ast.BlockStmt {
	return r.enclosingBody(&ast.Ident{NamePos: pos})
}

// constantOrNil: e is a constant or nil.
func (r *Result) constantOrNil(e ast.Expr) bool {
	tv, ok := r.pass.TypesInfo.Types[e]
	return ok && (tv.Value != nil || tv.IsNil())
}

// returnsBool: a call's type is bool, or a tuple whose first element is.
func returnsBool(t types.Type) bool {
	if tup, ok := t.(*types.Tuple); ok {
		if tup.Len() == 0 {
			return false
		}
		t = tup.At(0).Type()
	}
	return types.Identical(t.Underlying(), types.Typ[types.Bool])
}
