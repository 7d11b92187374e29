package jobs

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
)

// localWords: a bool field or method of a cluster member that says the
// member is this process (Endpoint.IsLocal, Peer.Self).
var localWords = regexp.MustCompile(`(?i)^(is_?)?(local|self|me)(_?(node|host|member|peer|instance))?$`)

// ownWords: a variable or field naming the process's own identity.
var ownWords = regexp.MustCompile(`(?i)^(self|me|(my|own|self|this|local)_?(id|node|node_?id|host|host_?name|addr|address|name|ip|endpoint|member|peer|instance|instance_?id))$`)

// ownOrdinalWords: the process's own index among its replicas.
var ownOrdinalWords = regexp.MustCompile(`(?i)^(my|own|self|local)?_?(instance|replica|pod)_?(index|idx|ordinal|num|number)$|ordinal`)

// ordinalDesignation describes a first-member (or constant-ordinal)
// designation: members[0].IsLocal, nodes[0] == self, members[0].ID == myID,
// cfg.InstanceIndex == 0. positive: the work runs where cond holds;
// otherwise where it does not (an else branch, an early exit).
func (f *finder) ordinalDesignation(cond ast.Expr, positive bool) string {
	cond = ast.Unparen(cond)
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return f.ordinalDesignation(c.X, !positive)
		}
	case *ast.BinaryExpr:
		switch {
		case c.Op == token.LAND && positive, c.Op == token.LOR && !positive:
			// Every conjunct must hold for the work to run.
			if d := f.ordinalDesignation(c.X, positive); d != "" {
				return d
			}
			return f.ordinalDesignation(c.Y, positive)
		case c.Op == token.EQL && positive, c.Op == token.NEQ && !positive:
			if d := f.ordinalEquality(c.X, c.Y); d != "" {
				return d
			}
			return f.ordinalEquality(c.Y, c.X)
		}
		return ""
	}
	if !positive {
		return ""
	}
	return f.localMember(cond)
}

// localMember: members[k].IsLocal (a field or a method call) with k constant.
func (f *finder) localMember(e ast.Expr) string {
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		e = ast.Unparen(call.Fun)
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || !localWords.MatchString(sel.Sel.Name) || !isBool(f.pass.TypesInfo.TypeOf(e)) && !returnsBoolType(f.pass.TypesInfo.TypeOf(e)) {
		return ""
	}
	if !f.constIndex(sel.X) {
		return ""
	}
	return "the first member of a cluster list (" + types.ExprString(sel) + ")"
}

// ordinalEquality: member == own identity, where member is members[k] or
// members[k].Field; or own ordinal == constant.
func (f *finder) ordinalEquality(x, y ast.Expr) string {
	x, y = ast.Unparen(x), ast.Unparen(y)
	m := x
	if sel, ok := m.(*ast.SelectorExpr); ok {
		m = sel.X
	}
	if f.constIndex(m) && f.ownIdentity(y) {
		return "the first member of a cluster list (" + types.ExprString(x) + " == " + types.ExprString(y) + ")"
	}
	if tv, ok := f.pass.TypesInfo.Types[y]; ok && tv.Value != nil && isInteger(tv.Type) && f.ownOrdinal(x) {
		return "the instance ordinal (" + types.ExprString(x) + " == " + tv.Value.String() + ")"
	}
	return ""
}

// constIndex: x[k] with k a constant, x a slice or an array.
func (f *finder) constIndex(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	if tv := f.pass.TypesInfo.Types[ix.Index]; tv.Value == nil {
		return false
	}
	t := f.pass.TypesInfo.TypeOf(ix.X)
	if t == nil {
		return false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t.Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	}
	return false
}

// ownIdentity: a name for the process's own identity (self, myID,
// localAddr) or a variable holding os.Hostname().
func (f *finder) ownIdentity(e ast.Expr) bool {
	if call, ok := e.(*ast.CallExpr); ok {
		return f.designationCall(call) != ""
	}
	id := nameIdent(e)
	if id == nil {
		return false
	}
	if ownWords.MatchString(id.Name) {
		return true
	}
	v, ok := f.pass.TypesInfo.ObjectOf(id).(*types.Var)
	return ok && f.designationOrigin(v) != ""
}

// ownOrdinal: a config field or package variable holding this instance's
// index (cfg.InstanceIndex, replicaOrdinal); a local variable may be a
// loop index over all instances.
func (f *finder) ownOrdinal(e ast.Expr) bool {
	id := nameIdent(e)
	if id == nil {
		return false
	}
	v, ok := f.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || !ownOrdinalWords.MatchString(id.Name) {
		return false
	}
	return v.IsField() || v.Parent() == v.Pkg().Scope()
}

func isBool(t types.Type) bool {
	return t != nil && types.Identical(t.Underlying(), types.Typ[types.Bool])
}

func returnsBoolType(t types.Type) bool {
	sig, ok := t.(*types.Signature)
	return ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 && isBool(sig.Results().At(0).Type())
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// nameIdent: the identifier that names e (x, or Sel of x.Sel), or nil.
func nameIdent(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}
