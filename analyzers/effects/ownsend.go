package effects

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A per-replica flush (ownbatch.go) whose send is a method of a client type
// in another package of the same module (a remote-write client's Store(ctx,
// series)). go/ssa has no body for it in the flushing package, so the
// client's package says so in a fact: the function only sends what it is
// handed over HTTP. Every call it makes, three levels down in its package,
// is net/http or net/url, a builtin, a function of a package that touches
// nothing outside (pureDependency), or a side call (a log line); it
// receives on no channel, starts no goroutine, and its summary holds HTTP
// sends only. The flush then judges the arguments it hands the client as
// it judges those of a helper of its own package. A client that reads a
// database or another store to complete the payload, or one of another
// module, is not followed, and the flush stays reported.
//
// Not covered yet (go.k6.io/k6 remotewrite.Output.flush stays reported):
// the conversion of the drained samples into series must compute only,
// and k6's calls a getter of another package's interface (GetSamples), a
// method of an unexported interface of its own package (MapPrompb), a
// kb-named package's constructor (prometheus.NewHistogram), a function
// held in a field (the trend-stats resolver), and goes five calls deep;
// its buffer's write path is also called through an output interface the
// buffer type does not implement (ownParam matches by name).

// Send is a function's fact: it sends only its arguments, over HTTP.
type Send struct{}

// AFact marks Send as a fact.
func (*Send) AFact() {}

// sendCandidates: the package imports net/http.
func sendCandidates(files []*ast.File) bool {
	for _, f := range files {
		for _, imp := range f.Imports {
			if imp.Path != nil && imp.Path.Value == `"net/http"` {
				return true
			}
		}
	}
	return false
}

// exportSends exports the Send fact of every exported function or method
// of the package that only sends its arguments over HTTP.
func (r *Result) exportSends() {
	fl := r.flow()
	w := &ownWalk{r: r, fl: fl, seen: map[ssa.Value]bool{}, pure: map[*ssa.Function]bool{}, buffers: map[*types.Var]bool{}}
	for _, fn := range fl.funcs {
		o, ok := fn.Object().(*types.Func)
		if !ok || !o.Exported() || fn.Parent() != nil || w.inTest(fn) {
			continue
		}
		if w.sendsOnly(fn, 0, map[*ssa.Function]bool{}) && httpSendsOnlyEffects(r.Of(o).Effects) {
			r.pass.ExportObjectFact(o, &Send{})
		}
	}
}

// httpSendsOnlyEffects: every effect is an HTTP send, at least one.
func httpSendsOnlyEffects(list []Effect) bool {
	for _, e := range list {
		if e.Kind != "send" || !strings.HasPrefix(e.API, "net/http.") && !strings.HasPrefix(e.Resource, "HTTP ") {
			return false
		}
	}
	return len(list) > 0
}

// sendsOnly: fn, and what it calls in its package, calls nothing but
// net/http, net/url, builtins, computing packages and side calls.
func (w *ownWalk) sendsOnly(fn *ssa.Function, depth int, seen map[*ssa.Function]bool) bool {
	if fn == nil || len(fn.Blocks) == 0 || depth > 3 {
		return false
	}
	if seen[fn] {
		return true
	}
	seen[fn] = true
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.UnOp, *ssa.Send, *ssa.Go:
				if waitsOrSpawns(in) {
					return false
				}
			case ssa.CallInstruction:
				c := in.Common()
				if _, builtin := c.Value.(*ssa.Builtin); builtin {
					continue
				}
				var pkg *types.Package
				if c.IsInvoke() {
					pkg = c.Method.Pkg()
				} else if g := c.StaticCallee(); g != nil {
					if g.Pkg == fn.Pkg {
						if w.sendsOnly(g, depth+1, seen) {
							continue
						}
					} else if o := g.Object(); o != nil {
						pkg = o.Pkg()
					}
				}
				if pkg != nil && (pkg.Path() == "net/http" || pkg.Path() == "net/url" || w.pureDependency(pkg)) {
					continue
				}
				if !sideCall(in, 0) {
					return false
				}
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if !w.sendsOnly(anon, depth+1, seen) {
			return false
		}
	}
	return true
}

// moduleSend: the callee is a function of another package of this module
// whose Send fact says it only sends its arguments.
func (r *Result) moduleSend(c *ssa.CallCommon) bool {
	g := c.StaticCallee()
	if c.IsInvoke() || g == nil {
		return false
	}
	o, ok := g.Object().(*types.Func)
	if !ok || o.Pkg() == nil || o.Pkg() == r.pass.Pkg {
		return false
	}
	return ownModuleCall(r.pass, o.Pkg().Path()) && r.pass.ImportObjectFact(o, new(Send))
}
