package jobs

import (
	"go/ast"
	"go/types"
)

// Registration helpers keep the job function in a struct field that the
// scheduled work calls later:
//
//	func RegisterTask(name string, fun func(ctx context.Context) error) {
//		t := &Task{name: name, fun: fun}
//		scheduler.Every(time.Minute).Do(t.Run) // Run calls t.fun
//	}
//
// The scheduled work (Task.Run) shows no effect: it calls a function value.
// registrationWrappers finds the fields such work calls, then the functions
// that store one of their parameters into such a field, and marks those
// functions as scheduling that parameter (a SchedulesParam fact), so every
// RegisterTask(..., func...) call becomes a scheduler site with that work.
func (f *finder) registrationWrappers() {
	fields := map[*types.Var]bool{}
	for _, j := range f.out.Jobs {
		if j.Work != nil {
			f.calledFields(j.Work, fields, 0, map[ast.Node]bool{})
		}
	}
	if len(fields) == 0 {
		return
	}
	decls := f.funcDecls()
	// Direct storers first, then functions forwarding their parameter to a
	// storer, until nothing changes (a few rounds at most).
	for round := 0; round < 4; round++ {
		changed := false
		for fn, fd := range decls {
			var sp SchedulesParam
			if f.pass.ImportObjectFact(fn, &sp) {
				continue
			}
			if i, ok := f.storesParam(fn, fd, fields); ok {
				f.exportHelper(fn, &SchedulesParam{Param: i, Period: -1, Kind: "registration"})
				changed = true
			}
		}
		if !changed {
			break
		}
	}
}

// calledFields collects func-typed struct fields called from body or from
// this package's functions it calls (three calls deep).
func (f *finder) calledFields(body ast.Node, fields map[*types.Var]bool, depth int, seen map[ast.Node]bool) {
	if body == nil || seen[body] || depth > 3 {
		return
	}
	seen[body] = true
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			if s, ok := f.pass.TypesInfo.Selections[sel]; ok && s.Kind() == types.FieldVal {
				if v, ok := s.Obj().(*types.Var); ok {
					if _, isFunc := v.Type().Underlying().(*types.Signature); isFunc {
						fields[v] = true
					}
				}
			}
		}
		if d := f.eff.Decl(f.funcRef(call.Fun)); d != nil {
			f.calledFields(d.Body, fields, depth+1, seen)
		}
		return true
	})
}

func (f *finder) funcDecls() map[*types.Func]*ast.FuncDecl {
	out := map[*types.Func]*ast.FuncDecl{}
	for file := range f.files {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := f.pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					out[fn] = fd
				}
			}
		}
	}
	return out
}

// storesParam returns the index of a func-typed parameter of fn that its
// body stores into one of the fields, or passes to a known registration
// helper's scheduled parameter.
func (f *finder) storesParam(fn *types.Func, fd *ast.FuncDecl, fields map[*types.Var]bool) (int, bool) {
	sig := fn.Type().(*types.Signature)
	params := map[types.Object]int{}
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		if _, ok := p.Type().Underlying().(*types.Signature); ok {
			params[p] = i
		}
	}
	if len(params) == 0 {
		return 0, false
	}
	paramOf := func(e ast.Expr) (int, bool) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			i, ok := params[f.pass.TypesInfo.Uses[id]]
			return i, ok
		}
		return 0, false
	}
	found, index := false, 0
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok {
				if v, ok := f.pass.TypesInfo.ObjectOf(key).(*types.Var); ok && fields[v] {
					index, found = paramOf(n.Value)
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if sel, ok := lhs.(*ast.SelectorExpr); ok && i < len(n.Rhs) {
					if v, ok := f.pass.TypesInfo.ObjectOf(sel.Sel).(*types.Var); ok && fields[v] {
						index, found = paramOf(n.Rhs[i])
					}
				}
			}
		case *ast.CallExpr:
			callee := f.funcRef(n.Fun)
			var sp SchedulesParam
			if callee != nil && callee != fn && f.pass.ImportObjectFact(callee, &sp) && sp.Param < len(n.Args) {
				index, found = paramOf(n.Args[sp.Param])
			}
		}
		return !found
	})
	return index, found
}
