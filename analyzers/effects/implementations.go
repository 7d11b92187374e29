package effects

import (
	"go/types"
	"regexp"
)

// implementations resolves a call through a project interface (a Store, a
// Repository) to the concrete types that implement it in this package or
// in a dependency whose functions reach shared state. When every such
// implementation (test doubles aside) reaches shared state, the call has
// their effects: that is what runs in production, and a reader of the code
// would follow it the same way. When one implementation does not (an
// in-memory variant), the call stays unknown, and unknown code gives no
// report.
func (r *Result) implementations(fn *types.Func) []*types.Func {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return nil
	}
	key := implKey{iface: sig.Recv().Type(), name: fn.Name()}
	if impls, ok := r.impls[key]; ok {
		return impls
	}
	var impls []*types.Func
	scan := func(p *types.Package) {
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() || testDouble.MatchString(name) {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok {
				continue
			}
			if _, isIface := named.Underlying().(*types.Interface); isIface {
				continue
			}
			ptr := types.NewPointer(named)
			if !types.Implements(ptr, iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(ptr, false, p, fn.Name())
			if m, ok := obj.(*types.Func); ok {
				impls = append(impls, m)
			}
		}
	}
	scan(r.pass.Pkg)
	for _, imp := range r.pass.Pkg.Imports() {
		if r.pass.ImportPackageFact(imp, new(Reaches)) {
			scan(imp)
		}
	}
	if r.impls == nil {
		r.impls = map[implKey][]*types.Func{}
	}
	r.impls[key] = impls
	return impls
}

type implKey struct {
	iface types.Type
	name  string
}

// testDouble names types that stand in for the real implementation in
// tests. An in-memory variant is not one: it is a real alternative (a
// single-process mode), and when it has no shared effect the call stays
// unknown.
var testDouble = regexp.MustCompile(`(?i)(mock|fake|stub|noop|nop|dummy|spy|test)`)

// implementationEffects returns the effects of an interface call when every
// implementation found reaches shared state, nil otherwise.
func (r *Result) implementationEffects(fn *types.Func) (*Summary, bool) {
	impls := r.implementations(fn)
	if len(impls) == 0 {
		return nil, false
	}
	out := &Summary{}
	for _, m := range impls {
		s := r.Of(m)
		if len(s.Effects) == 0 {
			return nil, false // an implementation without effects: unknown
		}
		for _, e := range s.Effects {
			if e.Via == "" {
				e.Via = funcName(m)
			}
			if len(out.Effects) < maxEffects {
				out.Effects = append(out.Effects, e)
			}
		}
	}
	return out, true
}
