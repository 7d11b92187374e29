package jobs

import (
	"go/ast"
	"go/types"
)

// Leadership as reachability: a function is coordinated when every way this
// package reaches it is coordinated. Its entries are its calls, the places
// that hand it on as a value (to AfterFunc, to a goroutine launcher, into a
// struct field that is called later), and the interface calls its method
// may implement (a maintainer that starts each service of a list when
// elected). One uncoordinated entry spoils it; with no entry in sight
// nothing is known. An entry from a function being judged (fn's own re-arm,
// a recursion, a cycle) adds nothing.

// maxReach bounds how many functions up an entry is followed.
const maxReach = 6

type reachResult struct {
	name string
	node ast.Node
	busy bool // being computed: a cycle
}

// entriesCoordination returns the coordination common to every entry of
// fn, memoised per function so that siblings get the same answer.
func (f *finder) entriesCoordination(fn *types.Func, depth int) (string, ast.Node) {
	if r, ok := f.reach[fn]; ok {
		return r.name, r.node
	}
	f.reach[fn] = reachResult{busy: true}
	outerCut := f.reachCut
	f.reachCut = false
	name, node := f.computeEntries(fn, depth)
	if f.reachCut && name == "" {
		// Cut short by maxReach: asked from closer to an entry point the
		// answer may differ, so it is not kept.
		delete(f.reach, fn)
	} else {
		f.reach[fn] = reachResult{name: name, node: node}
	}
	f.reachCut = f.reachCut || outerCut
	return name, node
}

func (f *finder) computeEntries(fn *types.Func, depth int) (string, ast.Node) {
	var name string
	var node ast.Node
	entries, spoiled := 0, false
	visit := func(stack []ast.Node) {
		if spoiled {
			return
		}
		if fd := enclosingFunc(stack); fd != nil {
			if caller, _ := f.pass.TypesInfo.Defs[fd.Name].(*types.Func); caller != nil {
				if r, ok := f.reach[caller]; ok && r.busy {
					return // on a cycle back to a function being judged
				}
			}
		}
		c, cn := f.siteCoordination(stack, depth+1)
		if c == "" {
			spoiled = true
			return
		}
		entries++
		if name == "" {
			name, node = c, cn
		}
	}
	stored := map[*types.Var]bool{}
	f.insp.WithStack([]ast.Node{(*ast.Ident)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || spoiled {
			return true
		}
		id := n.(*ast.Ident)
		obj, _ := f.pass.TypesInfo.Uses[id].(*types.Func)
		if obj == nil {
			return true
		}
		obj = obj.Origin()
		switch {
		case obj == fn:
			if field := storedInField(f.pass.TypesInfo, stack); field != nil {
				stored[field] = true // judged where the field is called
				return true
			}
			visit(stack)
		case f.implementedBy(obj, fn):
			if isCallee(stack) {
				visit(stack)
			}
		}
		return true
	})
	if len(stored) > 0 && !spoiled {
		f.insp.WithStack([]ast.Node{(*ast.Ident)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
			if !push || spoiled {
				return true
			}
			if v, ok := f.pass.TypesInfo.Uses[n.(*ast.Ident)].(*types.Var); ok && stored[v] && isCallee(stack) {
				visit(stack)
			}
			return true
		})
	}
	if spoiled || entries == 0 {
		return "", nil
	}
	return name, node
}

// implementedBy: m is an interface method that a call may dispatch to fn,
// a method of the same name whose receiver type implements m's interface.
func (f *finder) implementedBy(m, fn *types.Func) bool {
	if m.Name() != fn.Name() || m == fn {
		return false
	}
	msig, _ := m.Type().(*types.Signature)
	fsig, _ := fn.Type().(*types.Signature)
	if msig == nil || fsig == nil || msig.Recv() == nil || fsig.Recv() == nil {
		return false
	}
	iface, ok := msig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	recv := fsig.Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	return types.Implements(recv, iface) || types.Implements(types.NewPointer(recv), iface)
}

// isCallee: the identifier on top of the stack is what a call calls
// (f(...), x.f(...)).
func isCallee(stack []ast.Node) bool {
	id := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.SelectorExpr:
			if p.Sel != id {
				return false
			}
			id = p
		case *ast.ParenExpr:
			id = p
		case *ast.CallExpr:
			return p.Fun == id
		default:
			return false
		}
	}
	return false
}

// storedInField: the function value on top of the stack is stored into a
// struct field (T{run: s.run}, x.run = s.run); it returns that field.
func storedInField(info *types.Info, stack []ast.Node) *types.Var {
	ref := stack[len(stack)-1]
	i := len(stack) - 2
	if i >= 0 {
		if sel, ok := stack[i].(*ast.SelectorExpr); ok && sel.Sel == ref {
			ref, i = sel, i-1
		}
	}
	if i < 0 {
		return nil
	}
	switch p := stack[i].(type) {
	case *ast.KeyValueExpr:
		if p.Value != ref {
			return nil
		}
		if key, ok := p.Key.(*ast.Ident); ok {
			if v, ok := info.ObjectOf(key).(*types.Var); ok && v.IsField() {
				return v
			}
		}
	case *ast.AssignStmt:
		for j, r := range p.Rhs {
			if r == ref && j < len(p.Lhs) {
				if sel, ok := p.Lhs[j].(*ast.SelectorExpr); ok {
					if v, ok := info.ObjectOf(sel.Sel).(*types.Var); ok && v.IsField() {
						return v
					}
				}
			}
		}
	}
	return nil
}
