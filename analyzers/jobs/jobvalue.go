package jobs

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/signals"
)

// addJobValue: the work is a job value whose Run method the scheduler
// calls. A job decorated by a wrapper chain (cron.NewChain(...).Then(job))
// runs the job it wraps; a function converted to a library's func type
// (cron.FuncJob(fn)), whose Run calls it, runs that function.
func (f *finder) addJobValue(call *ast.CallExpr, name, schedule string, job ast.Expr, stack []ast.Node) {
	for depth := 0; depth < 4; depth++ {
		c, ok := ast.Unparen(job).(*ast.CallExpr)
		if !ok {
			break
		}
		if tv, ok := f.pass.TypesInfo.Types[c.Fun]; ok && tv.IsType() {
			if fn := f.libraryFuncJob(tv.Type); fn && len(c.Args) == 1 {
				f.addFuncJob(call, name, schedule, c.Args[0], stack)
				return
			}
			break
		}
		wrap, _ := typeutil.Callee(f.pass.TypesInfo, c).(*types.Func)
		a := f.kb.Match(signals.Schedulers, wrap)
		if a == nil || a.Kind != "jobwrap" {
			break
		}
		i, ok := a.Arg("job")
		if !ok || i >= len(c.Args) {
			return
		}
		job = c.Args[i]
	}
	f.addMethodJob(call, name, schedule, job, "Run", stack)
}

// libraryFuncJob: a named func type of another package with a Run method
// (cron.FuncJob): its Run calls the function, which the analysis follows
// instead of the library's method it cannot see into.
func (f *finder) libraryFuncJob(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() == f.pass.Pkg {
		return false
	}
	if _, ok := named.Underlying().(*types.Signature); !ok {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(named, true, f.pass.Pkg, "Run")
	_, isMethod := obj.(*types.Func)
	return isMethod
}
