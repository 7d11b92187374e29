package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// A stored start callback started late: an election's started-leading
// callback calls every stored callback (a func field, or a func field of
// the elements of a slice) with the leader context, and elsewhere the same
// stored value, or the parameter that was stored into that field, is called
// with a context LE4001 proves is not the leader's (context.Background()
// when a callback is registered while already leading). That work is not
// cancelled when the lease is lost.

// leaderCall is one call of a stored func value with the leader context.
type leaderCall struct {
	pos token.Pos // the call
	arg int       // the argument that is the leader context
}

// checkLateStarts reports the calls of cb's stored start callbacks made
// elsewhere with a context not derived from the leader's.
func (c *checker) checkLateStarts(cb *callback) {
	if cb.leader == nil || !c.callsFuncValue(cb) {
		return
	}
	eff, _ := c.p.ResultOf[effects.Analyzer].(*effects.Result)
	if eff == nil {
		return
	}
	funcs := eff.SSAFuncs()
	var fn *ssa.Function
	for _, f := range funcs {
		if f.Syntax() == cb.scope {
			fn = f
			break
		}
	}
	if fn == nil {
		return
	}
	var leaderParam *ssa.Parameter
	for _, p := range fn.Params {
		if p.Object() == cb.leader {
			leaderParam = p
		}
	}
	if leaderParam == nil {
		return
	}
	// the fields whose stored func the callback calls with the leader ctx
	stored := map[*types.Var]leaderCall{}
	eachDynCall(fn, func(cc *ssa.CallCommon, pos token.Pos) {
		field := storedField(cc.Value)
		if field == nil {
			return
		}
		for i, a := range cc.Args {
			if a == leaderParam {
				if _, ok := stored[field]; !ok {
					stored[field] = leaderCall{pos, i}
				}
			}
		}
	})
	if len(stored) == 0 {
		return
	}
	for _, f := range funcs {
		top := topOf(f)
		if top == fn || top.Syntax() == nil || f.Pkg == nil || f.Pkg.Pkg != c.p.Pkg {
			continue
		}
		// parameters of f stored into one of the fields
		held := map[*ssa.Parameter]*types.Var{}
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				st, ok := in.(*ssa.Store)
				if !ok {
					continue
				}
				p, ok := st.Val.(*ssa.Parameter)
				fa, ok2 := st.Addr.(*ssa.FieldAddr)
				if !ok || !ok2 {
					continue
				}
				if field := fieldOfAddr(fa); field != nil {
					if _, ok := stored[field]; ok {
						held[p] = field
					}
				}
			}
		}
		eachDynCall(f, func(cc *ssa.CallCommon, pos token.Pos) {
			field := storedField(cc.Value)
			if p, ok := cc.Value.(*ssa.Parameter); ok {
				field = held[p]
			}
			lc, ok := stored[field]
			if field == nil || !ok || lc.arg >= len(cc.Args) {
				return
			}
			c.reportLateStart(top, pos, lc, field)
		})
	}
}

// reportLateStart reports the call at pos in top when its context argument
// is provably not derived from the leader's.
func (c *checker) reportLateStart(top *ssa.Function, pos token.Pos, lc leaderCall, field *types.Var) {
	var call, lead *ast.CallExpr
	var decl *ast.FuncDecl
	for _, d := range c.decls {
		if d.Body != nil && d.Pos() <= pos && pos < d.End() {
			decl = d
		}
	}
	if decl == nil || decl != top.Syntax() {
		return
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if ce, ok := n.(*ast.CallExpr); ok && ce.Lparen == pos {
			call = ce
		}
		return call == nil
	})
	for _, f := range c.p.Pass.Files {
		if f.Pos() <= lc.pos && lc.pos < f.End() {
			ast.Inspect(f, func(n ast.Node) bool {
				if ce, ok := n.(*ast.CallExpr); ok && ce.Lparen == lc.pos {
					lead = ce
				}
				return lead == nil
			})
		}
	}
	if call == nil || lead == nil || lc.arg >= len(call.Args) {
		return
	}
	if c.lateReported == nil {
		c.lateReported = map[token.Pos]bool{}
	}
	if c.lateReported[call.Pos()] {
		return
	}
	// the context as LE4001 judges it in the function that makes the call:
	// its own context parameter counts as bound (prefer silence)
	other := newCallback(c, decl, decl.Type, decl.Body)
	other.outer, other.outerName = decl, decl.Name.Name
	v := other.classify(call.Args[lc.arg])
	if v.class != wrong {
		return
	}
	c.lateReported[call.Pos()] = true
	related := []analysis.RelatedInformation{rule.Related(lead, "the started-leading callback calls the stored %s with the leader context", field.Name())}
	c.p.Reportf(call, related,
		"stored leader callback %s (field %s) is started with %s, not the leader context its election passes it: when this replica loses the lease the work keeps running beside the new leader; pass the leader context saved when leadership began (or a context derived from it)",
		calleeName(call), field.Name(), v.why)
}

// callsFuncValue: cb's body calls a func value with its leader context, as
// the syntax says: the SSA form is read only then.
func (c *checker) callsFuncValue(cb *callback) bool {
	found := false
	ast.Inspect(cb.body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if c.callee(call) != nil {
			return true
		}
		if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
			return true
		}
		for _, a := range call.Args {
			if id, ok := ast.Unparen(a).(*ast.Ident); ok && c.info.Uses[id] == cb.leader {
				found = true
			}
		}
		return !found
	})
	return found
}

// eachDynCall calls f for every call of a func value in fn (not a static
// callee, not an interface method).
func eachDynCall(fn *ssa.Function, f func(*ssa.CallCommon, token.Pos)) {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			ci, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			cc := ci.Common()
			if cc.IsInvoke() || cc.StaticCallee() != nil {
				continue
			}
			if _, ok := cc.Value.(*ssa.Builtin); ok {
				continue
			}
			f(cc, ci.Pos())
		}
	}
}

// storedField: v is the value of a struct field of func type, loaded from
// the field's address or extracted from a struct value.
func storedField(v ssa.Value) *types.Var {
	switch v := v.(type) {
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if fa, ok := v.X.(*ssa.FieldAddr); ok {
				return fieldOfAddr(fa)
			}
		}
	case *ssa.Field:
		if st, ok := v.X.Type().Underlying().(*types.Struct); ok && v.Field < st.NumFields() {
			return funcField(st.Field(v.Field))
		}
	}
	return nil
}

func fieldOfAddr(fa *ssa.FieldAddr) *types.Var {
	ptr, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	st, ok := ptr.Elem().Underlying().(*types.Struct)
	if !ok || fa.Field >= st.NumFields() {
		return nil
	}
	return funcField(st.Field(fa.Field))
}

func funcField(v *types.Var) *types.Var {
	if _, ok := v.Type().Underlying().(*types.Signature); ok {
		return v
	}
	return nil
}

// topOf is the declared function a function literal is nested in.
func topOf(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}
