package lockrenewal

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
)

// This file carries "this function runs work of unbounded duration" across
// packages: the work under a lease is often a call into another package of
// the same module (a handler calling its store, which loops over chunks
// uploading each). The notion of unbounded is the rule's own (work.go),
// judged without a lock: a loop over input whose body does I/O or calls out,
// a user callback, a sleep of a duration that is not a constant; a constant
// iteration count, a constant sleep and calls under a context with a
// constant deadline are bounded. It is transitive through the calls of the
// package and through the facts of the packages it imports, of its module
// only.

// UnboundedWork is the fact that a function runs work of unbounded
// duration: What is the work, In the function it is in.
type UnboundedWork struct {
	What string
	In   string
}

// AFact marks UnboundedWork as an analysis fact.
func (*UnboundedWork) AFact() {}

func (w *UnboundedWork) String() string { return "runs " + w.What + " (in " + w.In + ")" }

// workAnalyzer computes the UnboundedWork facts of a package; its result,
// a *workResult, holds those of the package's own functions and of the
// functions of its module that it calls. A separate analyzer, so that its
// facts are no part of what LE3004's fixtures assert.
var workAnalyzer = &analysis.Analyzer{
	Name:       "gatesiftunboundedwork",
	Doc:        "compute which functions run work of unbounded duration (facts for LE3004)",
	Run:        runWork,
	Requires:   []*analysis.Analyzer{settings.Analyzer},
	FactTypes:  []analysis.Fact{new(UnboundedWork)},
	ResultType: reflect.TypeOf((*workResult)(nil)),
}

// workResult: the unbounded functions the package defines or calls in
// its module.
type workResult struct {
	funcs map[*types.Func]*UnboundedWork
}

// of returns fn's fact, or nil.
func (r *workResult) of(fn *types.Func) *UnboundedWork {
	if r == nil {
		return nil
	}
	return r.funcs[fn.Origin()]
}

func runWork(pass *analysis.Pass) (any, error) {
	conf, err := settings.Of(pass)
	if err != nil {
		return nil, err
	}
	res := &workResult{funcs: map[*types.Func]*UnboundedWork{}}
	if len(pass.Files) == 0 || effects.InGOROOT(pass.Fset.File(pass.Files[0].Pos()).Name()) {
		// The standard library carries no facts: the vet driver gives its
		// importers only its declarations (effects.InGOROOT).
		return res, nil
	}
	if pass.Module != nil && pass.Module.Version != "" {
		// A module required at a version (from the module cache): LE3004
		// consults these facts only for callees in the module of the
		// package it reports on, and it reports on the packages of the
		// module being worked on, whose version is empty (the main module,
		// a workspace or replaced directory), so walking every function of
		// every required module computes facts nothing reads.
		return res, nil
	}
	files := rule.ReadFiles(pass.Fset, pass.Files, pass.Pkg.Path(), conf.Config)
	mod := modulePath(pass)
	// the facts of the module's functions this package calls
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg() == pass.Pkg || !inModule(fn.Pkg().Path(), mod) {
				return true
			}
			if _, seen := res.funcs[fn.Origin()]; seen {
				return true
			}
			w := new(UnboundedWork)
			if pass.ImportObjectFact(fn.Origin(), w) {
				res.funcs[fn.Origin()] = w
			} else {
				res.funcs[fn.Origin()] = nil
			}
			return true
		})
	}
	c := &checker{p: &rule.Pass{Pass: pass}, info: pass.TypesInfo, decls: map[*types.Func]*ast.FuncDecl{}, work: res, factMode: true, module: mod}
	// unbounded follows no call of the package itself here (depth): the
	// walk below does, to any depth
	c.depth = 1
	for _, fd := range lockfacts.Funcs(files) {
		if fn, ok := c.info.Defs[fd.Name].(*types.Func); ok {
			c.decls[fn] = fd
		}
	}
	// no lock: no TTL to compare a sleep with; a constant deadline shorter
	// than the longest TTL judged bounds the calls made under it
	h := &held{op: &lockfacts.Op{}, ttlDur: longTTL}
	state := map[*types.Func]int{} // 1 being walked, 2 done
	var walk func(fn *types.Func) *UnboundedWork
	walk = func(fn *types.Func) *UnboundedWork {
		switch state[fn] {
		case 1:
			return nil // a cycle adds nothing
		case 2:
			return res.funcs[fn]
		}
		state[fn] = 1
		fd := c.decls[fn]
		var found *UnboundedWork
		bounded := c.deadlines(fd.Body, h)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if n == nil || found != nil {
				return false
			}
			switch x := n.(type) {
			case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
				return false
			case *ast.CallExpr:
				if constSleep(c.info, x) {
					return true
				}
				c.bounded = bounded
				if callee, ok := typeutil.Callee(c.info, x).(*types.Func); ok && !c.usesBounded(x) {
					var w *UnboundedWork
					if c.decls[callee.Origin()] != nil {
						w = walk(callee.Origin())
					} else if callee.Pkg() != pass.Pkg {
						w = res.of(callee) // another package of the module
					}
					if w != nil {
						found = &UnboundedWork{What: "a call of " + lockfacts.ExprText(x.Fun) + ", which runs " + w.What, In: w.In}
						if strings.Count(found.What, ", which runs ") > 1 {
							found.What = w.What // name the work, not every call on the way
						}
						return false
					}
				}
			}
			c.bounded = bounded
			if what, ok := c.unbounded(n, h); ok {
				found = &UnboundedWork{What: what, In: funcLabel(fn)}
				return false
			}
			return true
		})
		c.bounded = nil
		state[fn] = 2
		res.funcs[fn] = found
		return found
	}
	for fn := range c.decls {
		if w := walk(fn); w != nil && fn.Exported() {
			pass.ExportObjectFact(fn, w)
		}
	}
	return res, nil
}

// constSleep: time.Sleep of a constant, bounded without a lock to compare
// it with.
func constSleep(info *types.Info, call *ast.CallExpr) bool {
	fn := lockfacts.Callee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" || fn.Name() != "Sleep" || len(call.Args) != 1 {
		return false
	}
	_, ok := lockfacts.IntConst(info, call.Args[0])
	return ok
}

// funcLabel is pkg.Func or pkg.Type.Method.
func funcLabel(fn *types.Func) string {
	name := fn.Name()
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		if n := namedOf(recv.Type()); n != "" {
			name = n[strings.LastIndex(n, ".")+1:] + "." + name
		}
	}
	if fn.Pkg() == nil {
		return name
	}
	return fn.Pkg().Name() + "." + name
}

// crossWork returns the fact of fn, a function of another package of the
// module, when the lock h is one it is consulted for (doc.go).
func (c *checker) crossWork(call *ast.CallExpr, fn *types.Func, h *held) *UnboundedWork {
	if c.work == nil || fn.Pkg() == nil || fn.Pkg() == c.p.Pkg || !c.factMode && !crossPackageKind(h) {
		return nil
	}
	if c.leaseAt[call] != nil {
		return nil // the lease's own release or renewal
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && h.handle != "" && lockfacts.ExprText(sel.X) == h.handle {
		return nil // a method of the handle (a session's Age): the lease's own state
	}
	return c.work.of(fn)
}

// crossPackageKind: the locks for which work in other packages of the
// module counts, the project's own leases (an interface or a concrete
// handle type); a library's lock is judged by the work its caller's
// package shows.
func crossPackageKind(h *held) bool {
	return h.isLease()
}

// modulePath is the module of the package analyzed: pass.Module's path,
// or, without one (a GOPATH-style test), the package path's first
// element, or its first three when the first names a host
// (github.com/owner/repo).
func modulePath(pass *analysis.Pass) string {
	if pass.Module != nil && pass.Module.Path != "" {
		return pass.Module.Path
	}
	elems := strings.Split(pass.Pkg.Path(), "/")
	if strings.Contains(elems[0], ".") && len(elems) >= 3 {
		return strings.Join(elems[:3], "/")
	}
	return elems[0]
}

// inModule: path is mod or under it.
func inModule(path, mod string) bool {
	return path == mod || strings.HasPrefix(path, mod+"/")
}
