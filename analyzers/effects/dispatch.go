package effects

// Dispatch on a parameter: a request helper that takes the HTTP method (an
// operation code, a kind) and selects its branch by comparing it with
// constants (switch method { case http.MethodGet: c.get(...); case
// http.MethodPost: c.post(...) }) reaches, at a call that passes a
// constant, only the branches that constant selects. Without this the
// helper's summary is the union of its branches, and a loop that only
// GETs through it is reported for the POST, PUT and DELETE of the others.

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// ParamTest is one condition on a parameter under which an effect runs:
// the effect is reached only through a branch taken when the parameter
// (Norm applied) equals Value or one of Also (Equal: a case with several
// values), or differs from Value (!Equal). An effect's tests all hold
// when it runs (a conjunction).
type ParamTest struct {
	Param int    // 0-based, receiver not counted
	Value string // the constant: the string itself, or an integer's exact text
	Int   bool   // Value is an integer
	// Norm is what the comparison applies to the parameter first: "" for
	// none, "upper" (strings.ToUpper), "lower" (strings.ToLower), "fold"
	// (strings.EqualFold).
	Norm  string
	Equal bool
	Also  []string // more values, for an Equal test only
}

// maxTests bounds the tests of one effect. Leaving tests out only widens
// where an effect runs: the caller keeps it more often, never less.
const maxTests = 8

// eval reports whether the test holds of the constant argument v; known
// is false when v is of another kind than the test's constant.
func (t ParamTest) eval(v constant.Value) (holds, known bool) {
	eq, known := t.matches(v, t.Value)
	for _, w := range t.Also {
		if !known || eq || !t.Equal {
			break
		}
		eq, _ = t.matches(v, w)
	}
	if !known {
		return false, false
	}
	return eq == t.Equal, true
}

// matches compares the constant argument v with one of the test's values.
func (t ParamTest) matches(v constant.Value, value string) (eq, known bool) {
	switch {
	case t.Int && v.Kind() == constant.Int:
		return v.ExactString() == value, true
	case !t.Int && v.Kind() == constant.String:
		s := constant.StringVal(v)
		switch t.Norm {
		case "":
			return s == value, true
		case "upper":
			return strings.ToUpper(s) == value, true
		case "lower":
			return strings.ToLower(s) == value, true
		case "fold":
			return strings.EqualFold(s, value), true
		}
	}
	return false, false
}

// resolveTests reads, at a call of a function whose effect e runs only
// under tests of its parameters, the arguments those parameters get. A
// constant argument decides its test: e is dropped (false) when one fails,
// the test is dropped when it holds. An argument that is the caller's own
// parameter, unchanged, carries the test over to that parameter for the
// caller's callers. Any other argument drops the test: e is kept, as the
// union of the branches it was.
func (r *Result) resolveTests(call *ast.CallExpr, callee *types.Func, e *Effect) bool {
	if len(e.Tests) == 0 {
		return true
	}
	tests := e.Tests
	e.Tests = nil // a fresh slice: the callee's summary is shared
	if !sameArity(r.pass.TypesInfo, call, callee) {
		return true // a method expression, a function value of another shape: the arguments do not line up
	}
	for _, t := range tests {
		if t.Param < 0 || t.Param >= len(call.Args) {
			continue
		}
		if v := r.constArg(call, t.Param); v != nil {
			holds, known := t.eval(v)
			if known && !holds {
				return false // the branch this constant selects does not reach e
			}
			continue
		}
		if p := r.forwardedParam(call, t.Param); p >= 0 {
			t.Param = p
			e.Tests = append(e.Tests, t)
		}
	}
	return true
}

// sameArity: the call passes the callee's parameters one for one (not a
// method expression, whose first argument is the receiver).
func sameArity(info *types.Info, call *ast.CallExpr, callee *types.Func) bool {
	t := info.TypeOf(call.Fun)
	if t == nil {
		return false
	}
	at, ok := t.Underlying().(*types.Signature)
	sig, ok2 := callee.Type().(*types.Signature)
	return ok && ok2 && at.Params().Len() == sig.Params().Len() && at.Variadic() == sig.Variadic()
}

// constArg folds the i-th argument of call to a constant: a literal or a
// named constant (net/http.MethodGet) from the type checker, or a local
// variable whose only value is one (SSA lifts it to the constant). nil
// otherwise.
func (r *Result) constArg(call *ast.CallExpr, i int) constant.Value {
	arg := call.Args[i]
	if tv, ok := r.pass.TypesInfo.Types[arg]; ok && tv.Value != nil {
		return tv.Value
	}
	id, ok := ast.Unparen(arg).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Parent() == nil || v.Parent() == v.Pkg().Scope() || v.IsField() {
		return nil // a package variable may change anywhere
	}
	if c, ok := unwrap(r.flow().arg(call, i)).(*ssa.Const); ok && c.Value != nil {
		return c.Value
	}
	return nil
}

// forwardedParam returns the index of the parameter of the function around
// call that call passes, unchanged, as its i-th argument, or -1. The
// syntax is read first so that SSA is built only for a parameter.
func (r *Result) forwardedParam(call *ast.CallExpr, i int) int {
	if r.paramIndex(call, call.Args[i]) < 0 {
		return -1
	}
	return r.paramOf(call, i) // the SSA parameter itself: not reassigned on the way
}

// addBranchTests adds to the effects of the events in fn's body the tests
// of fn's parameters that select the branch each event's call is in.
func (r *Result) addBranchTests(fn *types.Func, decl *ast.FuncDecl, scan *Scanned) {
	reaches := false
	for _, ev := range scan.Events {
		if ev.Call != nil && len(ev.Effects) > 0 {
			reaches = true
		}
	}
	if !reaches || !dispatches(r.pass.TypesInfo, decl) {
		return // no SSA for functions that compare no parameter
	}
	fl := r.flow()
	for i := range scan.Events {
		ev := &scan.Events[i]
		if ev.Call == nil || len(ev.Effects) == 0 {
			continue
		}
		c := fl.common(ev.Call)
		if c == nil {
			continue
		}
		tests := branchTests(fn, fl.blocks[c])
		if len(tests) == 0 {
			continue
		}
		effs := make([]Effect, len(ev.Effects))
		for j, e := range ev.Effects {
			all := append(append([]ParamTest(nil), e.Tests...), tests...)
			e.Tests = all[:min(len(all), maxTests)]
			effs[j] = e
		}
		ev.Effects = effs
	}
}

// branchTests returns the tests of fn's parameters that hold whenever
// block runs: walking up the dominator tree from block, each dominator
// entered only from a conditional branch on a comparison of a parameter
// with a constant adds that comparison, as the edge taken says. A
// parameter is an immutable SSA value, so what held on entry to the
// dominator still holds in block. A block of a function literal gets
// none: its parameters are not fn's.
func branchTests(fn *types.Func, block *ssa.BasicBlock) []ParamTest {
	if block == nil || block.Parent() == nil || block.Parent().Parent() != nil || block.Parent().Object() != fn {
		return nil
	}
	var out []ParamTest
	for b := block; b != nil && len(out) < maxTests; b = b.Idom() {
		if len(b.Preds) > 1 {
			if t, ok := caseOfValues(b); ok {
				out = append(out, t)
			}
			continue
		}
		if len(b.Preds) != 1 {
			continue
		}
		if t, ok := edgeTest(b.Preds[0], b); ok {
			out = append(out, t)
		}
	}
	return out
}

// edgeTest reads the edge from p into b as a test: p ends in an If on a
// comparison of a parameter with a constant, and only one of its edges
// leads to b.
func edgeTest(p, b *ssa.BasicBlock) (ParamTest, bool) {
	ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
	if !ok || p.Succs[0] == p.Succs[1] {
		return ParamTest{}, false
	}
	return comparison(ifi.Cond, b == p.Succs[0])
}

// caseOfValues reads a block entered from several branches (the body of
// `case http.MethodPost, http.MethodPut:`, the then-branch of `m == a ||
// m == b`) as one test: every edge into it must be taken when the same
// parameter, normalised the same way, equals a constant; the parameter
// then equals one of them.
func caseOfValues(b *ssa.BasicBlock) (ParamTest, bool) {
	var out ParamTest
	for i, p := range b.Preds {
		t, ok := edgeTest(p, b)
		if !ok || !t.Equal {
			return ParamTest{}, false // an edge taken on anything else
		}
		if i == 0 {
			out = t
			continue
		}
		if t.Param != out.Param || t.Norm != out.Norm || t.Int != out.Int {
			return ParamTest{}, false
		}
		out.Also = append(out.Also, t.Value)
	}
	return out, len(b.Preds) > 1
}

// comparison reads a branch condition as a test of a parameter: param ==
// or != a constant (of the parameter, or of strings.ToUpper/ToLower of
// it), or strings.EqualFold(param, constant); taken: the branch is the
// one taken when the condition is true.
func comparison(cond ssa.Value, taken bool) (ParamTest, bool) {
	switch c := cond.(type) {
	case *ssa.BinOp:
		if c.Op != token.EQL && c.Op != token.NEQ {
			return ParamTest{}, false
		}
		x, y := c.X, c.Y
		if _, ok := x.(*ssa.Const); ok {
			x, y = y, x
		}
		k, ok := y.(*ssa.Const)
		if !ok {
			return ParamTest{}, false
		}
		norm, idx := compared(x)
		if idx < 0 {
			return ParamTest{}, false
		}
		return testOf(idx, norm, k, (c.Op == token.EQL) == taken)
	case *ssa.Call:
		if !isStringsFunc(c.Call.StaticCallee(), "EqualFold") || len(c.Call.Args) != 2 {
			return ParamTest{}, false
		}
		x, y := c.Call.Args[0], c.Call.Args[1]
		if _, ok := x.(*ssa.Const); ok {
			x, y = y, x
		}
		k, ok := y.(*ssa.Const)
		if !ok {
			return ParamTest{}, false
		}
		if norm, idx := compared(x); idx >= 0 && norm == "" {
			return testOf(idx, "fold", k, taken)
		}
	}
	return ParamTest{}, false
}

// compared names what a comparison reads: a parameter of a declared
// function (its index, receiver not counted), directly or through
// strings.ToUpper or strings.ToLower; -1 for anything else.
func compared(v ssa.Value) (norm string, idx int) {
	if ct, ok := v.(*ssa.ChangeType); ok {
		v = ct.X
	}
	if call, ok := v.(*ssa.Call); ok && len(call.Call.Args) == 1 {
		callee := call.Call.StaticCallee()
		switch {
		case isStringsFunc(callee, "ToUpper"):
			norm = "upper"
		case isStringsFunc(callee, "ToLower"):
			norm = "lower"
		default:
			return "", -1
		}
		v = call.Call.Args[0]
		if ct, ok := v.(*ssa.ChangeType); ok {
			v = ct.X
		}
	}
	p, ok := v.(*ssa.Parameter)
	if !ok || p.Parent() == nil || p.Parent().Parent() != nil {
		return "", -1
	}
	off := 0
	if p.Parent().Signature.Recv() != nil {
		off = 1
	}
	for j, x := range p.Parent().Params {
		if x == p && j >= off {
			return norm, j - off
		}
	}
	return "", -1
}

func isStringsFunc(fn *ssa.Function, name string) bool {
	return fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "strings" && fn.Name() == name
}

// testOf makes the test of parameter idx against the constant k: strings
// and integers only (a normalisation applies to strings).
func testOf(idx int, norm string, k *ssa.Const, equal bool) (ParamTest, bool) {
	if k.Value == nil {
		return ParamTest{}, false
	}
	switch k.Value.Kind() {
	case constant.String:
		return ParamTest{Param: idx, Value: constant.StringVal(k.Value), Norm: norm, Equal: equal}, true
	case constant.Int:
		if norm != "" {
			return ParamTest{}, false
		}
		return ParamTest{Param: idx, Value: k.Value.ExactString(), Int: true, Equal: equal}, true
	}
	return ParamTest{}, false
}

// dispatches: the syntax of decl compares one of its parameters with a
// constant (a switch on it, == or !=, strings.EqualFold) or normalises it
// (strings.ToUpper, ToLower), the gate in front of the SSA walk.
func dispatches(info *types.Info, decl *ast.FuncDecl) bool {
	params := map[types.Object]bool{}
	for _, f := range decl.Type.Params.List {
		for _, name := range f.Names {
			if obj := info.Defs[name]; obj != nil && basicValue(obj.Type()) {
				params[obj] = true
			}
		}
	}
	if len(params) == 0 {
		return false
	}
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && params[info.Uses[id]] {
				found = true
			}
			return !found
		})
		return found
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			found = found || n.Tag != nil && mentions(n.Tag)
		case *ast.BinaryExpr:
			found = found || (n.Op == token.EQL || n.Op == token.NEQ) && (mentions(n.X) && constExpr(info, n.Y) || mentions(n.Y) && constExpr(info, n.X))
		case *ast.CallExpr:
			// (ToUpper and ToLower: the local they make may be compared)
			found = found || stringsCall(info, n) && mentions(n)
		}
		return !found
	})
	return found
}

func constExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil
}

func stringsCall(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "strings" {
		return false
	}
	switch fn.Name() {
	case "EqualFold", "ToUpper", "ToLower":
		return true
	}
	return false
}
