package effects

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// flow answers value-flow questions over the package's SSA form: what text
// a statement argument holds when it is assembled (concatenation, a
// constant fmt.Sprintf format, a constant kept in a struct field or a
// package variable, a helper that returns a constant), and whether a value
// is the running instance's own identity (os.Hostname, a pod-name variable,
// a field initialised from them).
//
// The SSA form is built lazily, the first time a statement cannot be read
// from its constant expression, so packages whose statements are all
// literals pay nothing. It is built the way buildssa builds it (direct imports
// as type-only packages), but only for the packages that need it: the effects
// analysis runs on every dependency for its facts and most never ask.
type flow struct {
	calls  map[token.Pos][]*ssa.CallCommon     // by the call's Lparen
	values map[*ssa.CallCommon]*ssa.Call       // the call's result, for calls that are values (not go/defer)
	blocks map[*ssa.CallCommon]*ssa.BasicBlock // the block the call is in (dispatch.go)
	stores map[any][]ssa.Value                 // field (*types.Var) or *ssa.Global -> values stored to it
	// mapStores: the values stored into the map a field or variable holds
	// (m[k] = v on a load of it), by the same keys as stores
	mapStores map[any][]ssa.Value
	binops    map[token.Pos]*ssa.BinOp // comparisons and other binary operations, by the operator's position
	funcs     []*ssa.Function
}

// dynamicPart stands for the parts of a statement that are not constant (a
// configured table name, a %s verb): the statement stays readable, its
// resource unknown.
const dynamicPart = "gatesift_dynamic"

func (r *Result) flow() *flow {
	if r.ssa != nil {
		r.ssaTrace.note(r.pass.Pkg.Path(), false)
		return r.ssa
	}
	fl := &flow{calls: map[token.Pos][]*ssa.CallCommon{}, values: map[*ssa.CallCommon]*ssa.Call{}, blocks: map[*ssa.CallCommon]*ssa.BasicBlock{}, stores: map[any][]ssa.Value{}, mapStores: map[any][]ssa.Value{}, binops: map[token.Pos]*ssa.BinOp{}}
	r.ssa = fl
	r.ssaTrace.note(r.pass.Pkg.Path(), true)
	prog := ssa.NewProgram(r.pass.Fset, ssa.InstantiateGenerics)
	// The direct imports only, as buildssa does: go/ssa creates the
	// methods of indirect ones on demand (see calleePackage). Creating
	// every transitive import made the members of the whole closure (all
	// functions and methods of every generated protobuf package) for each
	// package that asks: 237 MB of the 519 MB live at one point of a
	// vitess run.
	for _, p := range r.pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	pkg := prog.CreatePackage(r.pass.Pkg, r.pass.Files, withoutConstantTables(r.pass.TypesInfo), false)
	pkg.Build()
	var add func(*ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil {
			return
		}
		fl.funcs = append(fl.funcs, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, m := range pkg.Members {
		switch m := m.(type) {
		case *ssa.Function:
			add(m)
		case *ssa.Type:
			for _, t := range []types.Type{m.Type(), types.NewPointer(m.Type())} {
				ms := prog.MethodSets.MethodSet(t)
				for i := 0; i < ms.Len(); i++ {
					if fn := prog.MethodValue(ms.At(i)); fn != nil && fn.Pkg == pkg && fn.Synthetic == "" {
						add(fn)
					}
				}
			}
		}
	}
	seen := map[*ssa.Function]bool{}
	for _, fn := range fl.funcs {
		if seen[fn] {
			continue
		}
		seen[fn] = true
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case ssa.CallInstruction:
					c := in.Common()
					fl.calls[c.Pos()] = append(fl.calls[c.Pos()], c)
					fl.blocks[c] = in.Block()
					if v, ok := in.(*ssa.Call); ok {
						fl.values[c] = v
					}
				case *ssa.Store:
					if k := storeKey(in.Addr); k != nil {
						fl.stores[k] = append(fl.stores[k], in.Val)
					}
				case *ssa.MapUpdate:
					if ld, ok := in.Map.(*ssa.UnOp); ok && ld.Op == token.MUL {
						if k := storeKey(ld.X); k != nil {
							fl.mapStores[k] = append(fl.mapStores[k], in.Value)
						}
					}
				case *ssa.BinOp:
					fl.binops[in.Pos()] = in
				}
			}
		}
	}
	return fl
}

// withoutConstantTables returns info, or a shallow copy of it (the maps
// shared, read only) whose InitOrder leaves out the initializers of
// constant tables (constantTable): the package's init function is then
// built without them. A parser's tables are most of a package's SSA form
// (vitess's sqlparser test variant: 166,000 of its 400,000 instructions,
// one IndexAddr and one Store of a constant per element), and flow records
// none of them: no call, no comparison, no store into a field; the store
// into the variable itself is a composite value that no fold reads (text,
// identity, funcOf and prepared all give up on it, as on a variable with
// no store), except storedIdentity, which names a variable with no store
// in sight by its name; a variable named like an identity is kept.
func withoutConstantTables(info *types.Info) *types.Info {
	keep := make([]*types.Initializer, 0, len(info.InitOrder))
	for _, init := range info.InitOrder {
		if len(init.Lhs) == 1 && !identityName.MatchString(init.Lhs[0].Name()) && constantTable(info, init.Rhs) {
			continue
		}
		keep = append(keep, init)
	}
	if len(keep) == len(info.InitOrder) {
		return info
	}
	lean := *info
	lean.InitOrder = keep
	return &lean
}

// constantTable: e is a composite literal of array, slice or map type whose
// every key and element is a constant or again such a literal. A struct
// literal is not one (its fields' stores are recorded), nor is anything
// with a call, a function literal or a variable in it.
func constantTable(info *types.Info, e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return false
	}
	t := info.TypeOf(lit)
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Array, *types.Slice, *types.Map:
	default:
		return false // a struct, an elided &T{...}, a type parameter
	}
	leaf := func(e ast.Expr) bool {
		if tv, ok := info.Types[e]; ok && tv.Value != nil {
			return true
		}
		return constantTable(info, e)
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if !leaf(kv.Key) {
				return false
			}
			el = kv.Value
		}
		if !leaf(el) {
			return false
		}
	}
	return true
}

// storeKey names what an address denotes: a struct field or a package
// variable.
func storeKey(addr ssa.Value) any {
	switch a := addr.(type) {
	case *ssa.FieldAddr:
		return fieldOf(a.X.Type(), a.Field)
	case *ssa.Global, *ssa.Alloc:
		return a
	case *ssa.FreeVar:
		// A closure's store to a variable it captured (m, err =
		// q.receiveTx(ctx, tx) inside a transaction callback) stores into
		// the enclosing function's cell.
		if cell := capturedCell(a, 0); cell != nil {
			return cell
		}
	}
	return nil
}

// capturedCell returns the local variable's cell that a closure's free
// variable is bound to wherever the closure is made (through enclosing
// closures too), or nil when the bindings differ or are no cell.
func capturedCell(fv *ssa.FreeVar, depth int) *ssa.Alloc {
	if depth > maxDepth {
		return nil
	}
	var cell *ssa.Alloc
	for _, b := range bindings(fv) {
		var c *ssa.Alloc
		switch b := b.(type) {
		case *ssa.Alloc:
			c = b
		case *ssa.FreeVar:
			c = capturedCell(b, depth+1)
		}
		if c == nil || cell != nil && c != cell {
			return nil
		}
		cell = c
	}
	return cell
}

// bindings returns the values a closure's free variable is bound to where
// the closure is made.
func bindings(fv *ssa.FreeVar) []ssa.Value {
	fn := fv.Parent()
	idx := -1
	for i, x := range fn.FreeVars {
		if x == fv {
			idx = i
		}
	}
	if idx < 0 || fn.Referrers() == nil {
		return nil
	}
	var out []ssa.Value
	for _, ref := range *fn.Referrers() {
		if mc, ok := ref.(*ssa.MakeClosure); ok && idx < len(mc.Bindings) {
			out = append(out, mc.Bindings[idx])
		}
	}
	return out
}

func fieldOf(t types.Type, i int) *types.Var {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if s, ok := t.Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i)
	}
	return nil
}

// arg returns the SSA value of the i-th source argument of call, nil when
// the call is not found or the argument is variadic.
func (fl *flow) arg(call *ast.CallExpr, i int) ssa.Value {
	c := fl.common(call)
	if c == nil {
		return nil
	}
	if !c.IsInvoke() && c.Signature().Recv() != nil {
		i++ // a static method call passes the receiver first
	}
	if c.Signature().Variadic() && i >= len(c.Args)-1 {
		return nil // inside the variadic slice
	}
	if i < len(c.Args) {
		return c.Args[i]
	}
	return nil
}

// args returns every SSA value passed to call, variadic ones unpacked.
func (fl *flow) args(call *ast.CallExpr) []ssa.Value {
	c := fl.common(call)
	if c == nil {
		return nil
	}
	var out []ssa.Value
	for i, a := range c.Args {
		if i == len(c.Args)-1 && c.Signature().Variadic() {
			out = append(out, sliceElems(a)...)
			continue
		}
		out = append(out, a)
	}
	return out
}

func (fl *flow) common(call *ast.CallExpr) *ssa.CallCommon {
	if list := fl.calls[call.Lparen]; len(list) == 1 {
		return list[0]
	}
	return nil
}

// sliceElems returns the values stored into the backing array of a
// variadic argument slice (`args...` built by the compiler).
func sliceElems(v ssa.Value) []ssa.Value {
	s, ok := v.(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := s.X.(*ssa.Alloc)
	if !ok || alloc.Referrers() == nil {
		return nil
	}
	var out []ssa.Value
	for _, ref := range *alloc.Referrers() {
		ia, ok := ref.(*ssa.IndexAddr)
		if !ok || ia.Referrers() == nil {
			continue
		}
		for _, r2 := range *ia.Referrers() {
			if st, ok := r2.(*ssa.Store); ok && st.Addr == ia {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// maxDepth bounds the value-flow walks.
const maxDepth = 8

// text folds a string value: the constant text, with dynamicPart where a
// part is not constant. ok is false when no part is constant.
func (fl *flow) text(v ssa.Value, depth int) (string, bool) {
	if v == nil || depth > maxDepth {
		return "", false
	}
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value != nil && v.Value.Kind() == constant.String {
			return constant.StringVal(v.Value), true
		}
		if v.Value != nil {
			return v.Value.ExactString(), true
		}
	case *ssa.ChangeType:
		return fl.text(v.X, depth+1)
	case *ssa.Convert:
		return fl.text(v.X, depth+1)
	case *ssa.MakeInterface:
		return fl.text(v.X, depth+1)
	case *ssa.BinOp:
		if v.Op != token.ADD {
			return "", false
		}
		x, xok := fl.text(v.X, depth+1)
		y, yok := fl.text(v.Y, depth+1)
		if !xok && !yok {
			return "", false
		}
		if !xok {
			x = dynamicPart
		}
		if !yok {
			y = dynamicPart
		}
		return x + y, true
	case *ssa.Phi:
		return fl.same(v.Edges, depth)
	case *ssa.FreeVar:
		return fl.same(bindings(v), depth)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if k := storeKey(v.X); k != nil {
				return fl.same(fl.stores[k], depth)
			}
		}
	case *ssa.Field:
		if f := fieldOf(v.X.Type(), v.Field); f != nil {
			return fl.same(fl.stores[f], depth)
		}
	case *ssa.Call:
		callee := v.Call.StaticCallee()
		if callee == nil {
			return "", false
		}
		if fn, ok := callee.Object().(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(v.Call.Args) == 2 {
			format, ok := fl.text(v.Call.Args[0], depth+1)
			if !ok || strings.Contains(format, dynamicPart) {
				return "", false // only a constant format is read
			}
			return fl.sprintf(format, sliceElems(v.Call.Args[1]), depth), true
		}
		if callee.Blocks != nil {
			// A helper that returns a constant statement (or builds one).
			var results []ssa.Value
			for _, b := range callee.Blocks {
				if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) == 1 {
					results = append(results, ret.Results[0])
				}
			}
			return fl.same(results, depth)
		}
	}
	return "", false
}

// same folds every value; they must agree.
func (fl *flow) same(vals []ssa.Value, depth int) (string, bool) {
	out, found := "", false
	for _, v := range vals {
		s, ok := fl.text(v, depth+1)
		if !ok || found && s != out {
			return "", false
		}
		out, found = s, true
	}
	return out, found
}

var sprintfVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// sprintf substitutes each verb by its folded argument or dynamicPart. The
// variadic slice's stores are in argument order in SSA.
func (fl *flow) sprintf(format string, args []ssa.Value, depth int) string {
	i := 0
	return sprintfVerb.ReplaceAllStringFunc(format, func(verb string) string {
		if verb == "%%" {
			return "%"
		}
		defer func() { i++ }()
		if i < len(args) {
			if s, ok := fl.text(args[i], depth+1); ok && !strings.Contains(s, dynamicPart) {
				return s
			}
		}
		if strings.HasSuffix(verb, "d") {
			return "0"
		}
		return dynamicPart
	})
}

// funcValue resolves a call through a function value (a struct field or a
// variable holding db.ExecContext, a package function or a method value)
// to the one function every value stored into it denotes, or nil.
func (fl *flow) funcValue(call *ast.CallExpr) *types.Func {
	c := fl.common(call)
	if c == nil || c.IsInvoke() || c.StaticCallee() != nil {
		return nil
	}
	return fl.funcOf(c.Value, 0)
}

func (fl *flow) funcOf(v ssa.Value, depth int) *types.Func {
	if v == nil || depth > maxDepth {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Function:
		fn, _ := v.Object().(*types.Func) // a bound method wrapper names its method
		return fn
	case *ssa.MakeClosure:
		return fl.funcOf(v.Fn, depth+1)
	case *ssa.ChangeType:
		return fl.funcOf(v.X, depth+1)
	case *ssa.Phi:
		return fl.sameFunc(v.Edges, depth)
	case *ssa.FreeVar:
		return fl.sameFunc(bindings(v), depth)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if k := storeKey(v.X); k != nil {
				return fl.sameFunc(fl.stores[k], depth)
			}
		}
	case *ssa.Field:
		if f := fieldOf(v.X.Type(), v.Field); f != nil {
			return fl.sameFunc(fl.stores[f], depth)
		}
	}
	return nil
}

func (fl *flow) sameFunc(vals []ssa.Value, depth int) *types.Func {
	var out *types.Func
	for _, v := range vals {
		fn := fl.funcOf(v, depth+1)
		if fn == nil || out != nil && fn != out {
			return nil
		}
		out = fn
	}
	return out
}

// unwrap sees through conversions and interface wrapping to the value
// they carry.
func unwrap(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		case *ssa.Convert:
			v = x.X
		default:
			return v
		}
	}
}

// SSAFuncs returns the package's functions in the value-flow SSA form
// (each declared function and method with its function literals, built
// once per package on first use), for rules whose question is value flow
// in the package, so that they do not build a second SSA of it.
func (r *Result) SSAFuncs() []*ssa.Function { return r.flow().funcs }
