package effects

import (
	"go/types"
	"path"
	"strings"
	"unicode"

	"github.com/gatesift/gatesift-vet/signals"
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
	iface, key := interfaceMethod(fn)
	if iface == nil {
		return nil
	}
	if impls, ok := r.impls[key]; ok {
		return impls
	}
	impls := r.implsIn(r.pass.Pkg, iface, fn.Name())
	for _, imp := range r.pass.Pkg.Imports() {
		if r.pass.ImportPackageFact(imp, new(Reaches)) {
			impls = append(impls, r.implsIn(imp, iface, fn.Name())...)
		}
	}
	if r.impls == nil {
		r.impls = map[implKey][]*types.Func{}
	}
	r.impls[key] = impls
	return impls
}

// implsIn returns the methods called name of the named types of p (test
// doubles aside) whose pointer implements iface.
func (r *Result) implsIn(p *types.Package, iface *types.Interface, name string) []*types.Func {
	var impls []*types.Func
	for _, tname := range p.Scope().Names() {
		tn, ok := p.Scope().Lookup(tname).(*types.TypeName)
		if !ok || tn.IsAlias() || r.testDouble(tn) {
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
		obj, _, _ := types.LookupFieldOrMethod(ptr, false, p, name)
		if m, ok := obj.(*types.Func); ok {
			impls = append(impls, m)
		}
	}
	return impls
}

// implementationAPIs resolves a call through an interface whose every
// implementation in the interface's own package is a method the knowledge
// base names as an effect: a generated clientset's typed interface
// (APIServiceInterface.UpdateStatus), implemented beside it by a struct
// that embeds client-go's gentype.Client, is that client's write. The
// interface's package is where generated code puts both. The call has the
// effects of all of them; one the knowledge base does not name (an
// in-memory variant) leaves the call unknown (nil).
func (r *Result) implementationAPIs(fn *types.Func) []implAPI {
	iface, key := interfaceMethod(fn)
	if iface == nil || fn.Pkg() == nil {
		return nil
	}
	if apis, ok := r.implAPIs[key]; ok {
		return apis
	}
	if !r.effectsBeside(fn.Pkg()) {
		return nil
	}
	var apis []implAPI
	for _, m := range r.implsIn(fn.Pkg(), iface, fn.Name()) {
		a := r.kb.Match(signals.Effects, m)
		if a == nil || r.ownPlumbing(m, a) {
			apis = nil
			break
		}
		apis = append(apis, implAPI{api: a, fn: m})
	}
	if r.implAPIs == nil {
		r.implAPIs = map[implKey][]implAPI{}
	}
	r.implAPIs[key] = apis
	return apis
}

// effectsBeside: an implementation in p can be a method the knowledge base
// names only when p is, or directly imports, a package with effects in it
// (a typed clientset's package imports gentype): for every other
// interface the scan of p's scope is skipped. Cached per package, since
// the effects analysis runs on every dependency under go vet.
func (r *Result) effectsBeside(p *types.Package) bool {
	if known, ok := r.implPkgs[p]; ok {
		return known
	}
	known := r.kb.KnowsIn(signals.Effects, p.Path())
	for _, imp := range p.Imports() {
		known = known || r.kb.KnowsIn(signals.Effects, imp.Path())
	}
	if r.implPkgs == nil {
		r.implPkgs = map[*types.Package]bool{}
	}
	r.implPkgs[p] = known
	return known
}

// implAPI is an implementation the knowledge base names, and its entry.
type implAPI struct {
	api *signals.API
	fn  *types.Func
}

// interfaceMethod returns the interface fn is a method of, with the key
// its resolutions are cached under; nil for a function or a method of a
// concrete or empty interface type.
func interfaceMethod(fn *types.Func) (*types.Interface, implKey) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, implKey{}
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return nil, implKey{}
	}
	return iface, implKey{iface: sig.Recv().Type(), name: fn.Name()}
}

type implKey struct {
	iface types.Type
	name  string
}

// testDouble reports whether a type stands in for the real implementation
// in tests: one of the words of its name is a test-double word (MockStore,
// fakeDB, noopSender, but not latestPrices or Contest), it is declared in a
// _test.go file, or its package is test support (a mocks or fakes package,
// an external test package, or one importing testing). An in-memory variant
// is not one: it is a real alternative (a single-process mode), and when it
// has no shared effect the call stays unknown.
func (r *Result) testDouble(tn *types.TypeName) bool {
	if DoubleName(tn.Name()) {
		return true
	}
	if pos := r.pass.Fset.Position(tn.Pos()); strings.HasSuffix(pos.Filename, "_test.go") {
		return true
	}
	return testSupport(tn.Pkg())
}

// DoubleName reports whether one of the words of an identifier is a
// test-double word (MockStore, fakeDB, noopSender; not latestPrices or
// Contest).
func DoubleName(name string) bool {
	for _, w := range identWords(name) {
		if doubleWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

var doubleWords = map[string]bool{
	"mock": true, "mocks": true, "mocked": true, "fake": true, "fakes": true,
	"stub": true, "stubs": true, "stubbed": true, "noop": true, "nop": true,
	"dummy": true, "spy": true, "test": true, "testing": true,
}

// testSupport: a package that exists for tests.
func testSupport(p *types.Package) bool {
	if p == nil {
		return false
	}
	// Only whole names and unambiguous suffixes: a package named latest or
	// contest is no test support; storetest-like ones import testing.
	name := path.Base(p.Path())
	if doubleWords[name] || strings.HasSuffix(name, "mocks") || strings.HasSuffix(name, "_test") {
		return true
	}
	for _, imp := range p.Imports() {
		if imp.Path() == "testing" {
			return true
		}
	}
	return false
}

// identWords splits an identifier into its words: at underscores and
// digits, before an upper-case letter that follows a lower-case one
// (latestPrices: latest, Prices), and before the last upper-case letter of
// an acronym followed by a lower-case one (HTTPMock: HTTP, Mock).
func identWords(id string) []string {
	var words []string
	runes := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, string(runes[start:end]))
		}
		start = end
	}
	for i, c := range runes {
		switch {
		case c == '_' || unicode.IsDigit(c):
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(c) &&
			(unicode.IsLower(runes[i-1]) || i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1])):
			flush(i)
		}
	}
	flush(len(runes))
	return words
}

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

// implementationClaim returns the claim that every implementation found of
// an interface method takes and whose answer it returns (a Broker whose
// only real implementation runs a claim script), "" when one does not.
func (r *Result) implementationClaim(fn *types.Func) string {
	impls := r.implementations(fn)
	claim := ""
	for _, m := range impls {
		s := r.Of(m)
		if !s.Gate || s.Coordination == "" {
			return ""
		}
		if claim == "" {
			claim = s.Coordination + " of " + funcName(m)
		}
	}
	return claim
}
