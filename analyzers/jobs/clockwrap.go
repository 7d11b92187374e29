package jobs

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/signals"
)

// A project's own clock: an interface (Clock.NewTicker(d) Ticker) whose
// implementation wraps time.NewTicker, so that tests can inject a fake.
//
//	func (realClock) NewTicker(d time.Duration) Ticker { return &realTicker{time.NewTicker(d)} }
//	func (t *realTicker) C() <-chan time.Time            { return t.t.C }
//
// A function that returns what a known ticker or timer constructor built
// from its duration parameter, as a value with a channel to receive from (a
// C field, a C() or Chan() method), makes a ticker: its calls are scheduler
// sites like time.NewTicker itself. An interface method makes one when every
// implementation in its package (and the imported packages that make
// tickers) does, test doubles aside; one implementation that does not (a
// manual clock fed by hand) leaves it unknown.

// MakesTicker is a fact on a function or interface method that returns a
// ticker or timer built from its Period-th parameter.
type MakesTicker struct {
	Kind   string // "ticker" or "timer"
	Period int
}

// AFact marks MakesTicker as a fact.
func (*MakesTicker) AFact() {}

func (m *MakesTicker) String() string { return "makes " + m.Kind + " of param " + itoa(m.Period) }

// tickerMakers exports MakesTicker facts for the package's functions, then
// for its interface methods.
func (f *finder) tickerMakers() {
	found := false
	for fn, fd := range f.funcDecls() {
		if m := f.makesTicker(fn, fd); m != nil {
			f.pass.ExportObjectFact(fn, m)
			found = true
		}
	}
	if !found && !f.anyMakesTicker() {
		// An interface method gets the fact only from implementations
		// that have it; with none anywhere in sight, the scan below
		// (every interface method against every type of the package and
		// of its helper imports) finds nothing. It was the largest cost of
		// the analysis on dependencies under go vet (protobuf-generated
		// packages have hundreds of both).
		return
	}
	scope := f.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for i := 0; i < iface.NumExplicitMethods(); i++ {
			m := iface.ExplicitMethod(i)
			if mt := f.implementationsMakeTicker(tn.Type(), iface, m); mt != nil {
				f.pass.ExportObjectFact(m, mt)
				found = true
			}
		}
	}
	if found {
		f.pass.ExportPackageFact(&HasHelpers{})
	}
}

// anyMakesTicker reports whether any function or method this package can
// see, its own or an import's, has a MakesTicker fact.
func (f *finder) anyMakesTicker() bool {
	for _, of := range f.pass.AllObjectFacts() {
		if _, ok := of.Fact.(*MakesTicker); ok {
			return true
		}
	}
	return false
}

// makesTicker reports whether fd returns a ticker or timer it builds from a
// time.Duration parameter.
func (f *finder) makesTicker(fn *types.Func, fd *ast.FuncDecl) *MakesTicker {
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() == 0 || !receivable(sig.Results().At(0).Type(), f.pass.Pkg) {
		return nil
	}
	params := map[types.Object]int{}
	for i := 0; i < sig.Params().Len(); i++ {
		if isDuration(sig.Params().At(i).Type()) {
			params[sig.Params().At(i)] = i
		}
	}
	if len(params) == 0 {
		return nil
	}
	var out *MakesTicker
	returned := returnedNames(f.pass.TypesInfo, fd.Body)
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok || out != nil {
			return true
		}
		cfn, _ := typeutil.Callee(f.pass.TypesInfo, call).(*types.Func)
		a := f.kb.Match(signals.Schedulers, cfn)
		if a == nil || a.Kind != "ticker" && a.Kind != "timer" {
			return true
		}
		if _, hasFn := a.Arg("fn"); hasFn {
			return true // AfterFunc runs its own function
		}
		i, ok := a.Arg("period")
		if !ok || i >= len(call.Args) {
			return true
		}
		id, ok := ast.Unparen(call.Args[i]).(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := params[f.pass.TypesInfo.Uses[id]]
		if !ok || !flowsToReturn(f.pass.TypesInfo, stack, returned) {
			return true
		}
		out = &MakesTicker{Kind: a.Kind, Period: p}
		return true
	})
	return out
}

// flowsToReturn: the call (last on stack) is inside a return statement, or
// assigned to a local variable that a return statement mentions.
func flowsToReturn(info *types.Info, stack []ast.Node, returned map[types.Object]bool) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && returned[info.ObjectOf(id)] {
					return true
				}
			}
			return false
		case *ast.FuncLit, ast.Stmt:
			if _, isExpr := s.(*ast.ExprStmt); !isExpr {
				return false
			}
		}
	}
	return false
}

// returnedNames: the local variables a return statement of body mentions
// (return &wrapper{t: t}, return t).
func returnedNames(info *types.Info, body *ast.BlockStmt) map[types.Object]bool {
	out := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				ast.Inspect(r, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						if obj := info.Uses[id]; obj != nil {
							out[obj] = true
						}
					}
					return true
				})
			}
		}
		return true
	})
	return out
}

// implementationsMakeTicker returns the fact for interface method m when
// every implementation of iface in this package and in the imported
// packages that make tickers makes the same kind of ticker from the same
// parameter.
func (f *finder) implementationsMakeTicker(ifaceType types.Type, iface *types.Interface, m *types.Func) *MakesTicker {
	var out *MakesTicker
	ok := true
	scan := func(p *types.Package) {
		for _, name := range p.Scope().Names() {
			tn, isType := p.Scope().Lookup(name).(*types.TypeName)
			if !isType || tn.IsAlias() || effects.DoubleName(name) || types.Identical(tn.Type(), ifaceType) {
				continue
			}
			if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
				continue
			}
			ptr := types.NewPointer(tn.Type())
			if !types.Implements(ptr, iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(ptr, false, p, m.Name())
			impl, isFunc := obj.(*types.Func)
			var mt MakesTicker
			if !isFunc || !f.pass.ImportObjectFact(impl, &mt) || out != nil && *out != mt {
				ok = false
				continue
			}
			out = &mt
		}
	}
	scan(f.pass.Pkg)
	for _, imp := range f.pass.Pkg.Imports() {
		if f.pass.ImportPackageFact(imp, new(HasHelpers)) {
			scan(imp)
		}
	}
	if !ok {
		return nil
	}
	return out
}

// receivable: t has a channel to receive from: a C field, or a C() or
// Chan() method returning a channel.
func receivable(t types.Type, pkg *types.Package) bool {
	for _, name := range []string{"C", "Chan"} {
		obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, name)
		switch o := obj.(type) {
		case *types.Var:
			if _, ok := o.Type().Underlying().(*types.Chan); ok && name == "C" {
				return true
			}
		case *types.Func:
			sig := o.Type().(*types.Signature)
			if sig.Params().Len() == 0 && sig.Results().Len() == 1 {
				if _, ok := sig.Results().At(0).Type().Underlying().(*types.Chan); ok {
					return true
				}
			}
		}
	}
	return false
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}
