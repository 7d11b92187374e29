package effects

import (
	"go/types"

	"github.com/gatesift/gatesift-vet/signals"
)

// facade resolves a call of a method of an interface the knowledge base does
// not name, when a type the knowledge base does name implements that
// interface: a project's `Engine` interface over *xorm.Engine, a `Querier`
// over *sql.DB. Projects wrap their store this way so often that treating
// the facade as the store is what a reader would do; a type that is not
// imported anywhere below this package cannot be behind the interface, so
// only imported types are tried.
func (r *Result) facade(fn *types.Func) (*signals.API, *types.Func) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return nil, nil
	}
	key := facadeKey{iface: sig.Recv().Type(), name: fn.Name()}
	if hit, ok := r.facades[key]; ok {
		return hit.api, hit.fn
	}
	var hit facadeHit
	for _, c := range r.candidates(fn.Name()) {
		ptr := types.NewPointer(c.typ)
		if types.Implements(ptr, iface) || types.Implements(c.typ, iface) {
			obj, _, _ := types.LookupFieldOrMethod(ptr, false, c.typ.Obj().Pkg(), fn.Name())
			if m, ok := obj.(*types.Func); ok {
				hit = facadeHit{api: r.kb.Match(signals.Effects, m), fn: m}
				if hit.api != nil && r.ownPlumbing(m, hit.api) {
					hit.api = nil // the library's own store behind its interface
				}
				if hit.api != nil {
					break
				}
			}
		}
	}
	if r.facades == nil {
		r.facades = map[facadeKey]facadeHit{}
	}
	r.facades[key] = hit
	return hit.api, hit.fn
}

type facadeKey struct {
	iface types.Type
	name  string
}

type facadeHit struct {
	api *signals.API
	fn  *types.Func
}

type candidate struct {
	typ *types.Named
}

// candidates lists the named types of imported packages that the knowledge
// base names with a method called name.
func (r *Result) candidates(name string) []candidate {
	if r.imported == nil {
		r.imported = map[string]*types.Package{}
		var walk func(p *types.Package)
		walk = func(p *types.Package) {
			for _, imp := range p.Imports() {
				if _, seen := r.imported[imp.Path()]; !seen {
					r.imported[imp.Path()] = imp
					walk(imp)
				}
			}
		}
		walk(r.pass.Pkg)
	}
	var out []candidate
	for _, a := range r.kb.Effects {
		if a.Name != name || a.Recv == "" || a.Recv == "*" {
			continue
		}
		p := r.imported[a.Pkg]
		if p == nil {
			continue
		}
		if tn, ok := p.Scope().Lookup(a.Recv).(*types.TypeName); ok {
			if named, ok := tn.Type().(*types.Named); ok {
				out = append(out, candidate{typ: named})
			}
		}
	}
	return out
}
