package lockfacts

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"sort"
	"strings"

	"github.com/gatesift/gatesift-vet/signals"
)

// FlockRemoval is the removal of the path of a file the package locks with
// an advisory lock (flock(2): gofrs/flock, syscall.Flock, unix.Flock). The
// lock is held on the open file, the inode, not on the path: once the path
// is removed, another process creates a new file there and locks it while
// the old inode is still locked (or still waited on), and two processes
// hold "the" lock. The removal is unsafe after the unlock (a process
// waiting on the old inode gets it, and a newcomer locks the new file) and
// on a path where this process does not hold the lock at all.
//
// A removal is not returned when the function that takes the lock
// re-checks, after locking, that the file it locked is still the one at
// the path (os.SameFile of a stat of the path and of the open file), and
// the removal runs before the unlock: the only safe way to remove such a
// lock file.
type FlockRemoval struct {
	Remove  *ast.CallExpr // os.Remove, os.RemoveAll of the lock file's path
	Acquire *ast.CallExpr // the Lock/TryLock, or flock(2), of a file opened from that path
	Handle  string        // "gofrs/flock" or "flock(2)"
}

// flockAcquire is one lock call and the keys of the path it locks.
type flockAcquire struct {
	call    *ast.CallExpr
	handle  string
	recheck bool // its function compares the locked file with the path (os.SameFile)
}

// FlockRemovals finds the removals of advisory lock files in the package.
func FlockRemovals(info *types.Info, kb *signals.Knowledge, files []*ast.File) []*FlockRemoval {
	kind := func(call *ast.CallExpr) *signals.API { return kb.Match(signals.Locks, Callee(info, call)) }
	keys := &flockKeys{info: info, values: map[types.Object][]ast.Expr{}, handles: map[string][]ast.Expr{}, params: map[*types.Var]bool{}}
	opened := map[string][]ast.Expr{} // *os.File variables and fields: the paths they were opened from
	keys.kind = kind
	local := map[*types.Func]bool{}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			local[fn] = true
			params := fn.Type().(*types.Signature).Params()
			for i := 0; i < params.Len(); i++ {
				keys.params[params.At(i)] = true
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			bind := func(l, r ast.Expr) {
				call, ok := ast.Unparen(r).(*ast.CallExpr)
				if !ok {
					return
				}
				if api := kind(call); api != nil && api.Kind == "flock-new" {
					if i, ok := api.Arg("path"); ok && i < len(call.Args) {
						for _, k := range keys.handleKeys(l) {
							keys.handles[k] = append(keys.handles[k], call.Args[i])
						}
					}
				}
			}
			switch x := n.(type) {
			case *ast.CallExpr:
				// a parameter of a function of the package holds each
				// path its callers pass
				if fn := Callee(info, x); fn != nil && local[fn.Origin()] && !x.Ellipsis.IsValid() {
					params := fn.Origin().Type().(*types.Signature).Params()
					for i, a := range x.Args {
						if i < params.Len() {
							keys.values[params.At(i)] = append(keys.values[params.At(i)], a)
						}
					}
				}
			case *ast.AssignStmt:
				if len(x.Lhs) == len(x.Rhs) {
					for i, l := range x.Lhs {
						if v := keys.variable(l); v != nil {
							keys.values[v] = append(keys.values[v], x.Rhs[i])
						}
						bind(l, x.Rhs[i])
					}
				} else if len(x.Rhs) == 1 {
					// f, err := os.OpenFile(path, ...)
					if call, ok := ast.Unparen(x.Rhs[0]).(*ast.CallExpr); ok {
						if api := kind(call); api != nil && (api.Kind == "file-create" || api.Kind == "file-write" || api.Kind == "file-read") {
							if i, ok := api.Arg("path"); ok && i < len(call.Args) {
								for _, k := range keys.handleKeys(x.Lhs[0]) {
									opened[k] = append(opened[k], call.Args[i])
								}
							}
						}
					}
				}
			case *ast.ValueSpec:
				if len(x.Names) == len(x.Values) {
					for i, id := range x.Names {
						bind(id, x.Values[i])
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok {
					if v, ok := info.ObjectOf(id).(*types.Var); ok && v.IsField() {
						keys.values[v] = append(keys.values[v], x.Value)
						bind(id, x.Value)
					}
				}
			}
			return true
		})
	}
	acquired := map[string][]*flockAcquire{}
	for _, fd := range Funcs(files) {
		recheck := false
		var calls []*ast.CallExpr
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if api := kind(call); api != nil && api.Kind == "file-same" {
					recheck = true
				}
				calls = append(calls, call)
			}
			return true
		})
		for _, call := range calls {
			api := kind(call)
			if api == nil {
				continue
			}
			var paths []ast.Expr
			handle := ""
			switch api.Kind {
			case "flock-lock":
				sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
				if !ok {
					continue
				}
				paths, handle = keys.handlePaths(sel.X), "gofrs/flock"
			case "flock-fd":
				if !flockTakes(info, call, api) {
					continue
				}
				i, _ := api.Arg("fd")
				if f := fdFile(info, call.Args[i]); f != nil {
					for _, k := range keys.handleKeys(f) {
						paths = append(paths, opened[k]...)
					}
				}
				handle = "flock(2)"
			default:
				continue
			}
			a := &flockAcquire{call: call, handle: handle, recheck: recheck}
			seen := map[string]bool{}
			for _, p := range paths {
				for _, k := range keys.of(p, 0) {
					if !seen[k] {
						seen[k] = true
						acquired[k] = append(acquired[k], a)
					}
				}
			}
		}
	}
	if len(acquired) == 0 {
		return nil
	}
	var out []*FlockRemoval
	for _, fd := range Funcs(files) {
		deferred := Deferred(fd.Body)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			api := kind(call)
			if api == nil || api.Kind != "file-remove" {
				return true
			}
			i, ok := api.Arg("path")
			if !ok || i >= len(call.Args) {
				return true
			}
			var acq *flockAcquire
			for _, k := range keys.of(call.Args[i], 0) {
				for _, a := range acquired[k] {
					if a.recheck && unlockedAfter(info, kind, fd.Body, deferred, call) {
						continue // removed while held, and acquirers re-check the inode
					}
					// the acquire in the removal's own function, else the first
					if acq == nil || !Inside(acq.call, fd.Body) && Inside(a.call, fd.Body) {
						acq = a
					}
				}
			}
			if acq != nil {
				out = append(out, &FlockRemoval{Remove: call, Acquire: acq.call, Handle: acq.handle})
			}
			return true
		})
	}
	return out
}

// flockTakes reports whether a flock(2) call takes a lock: its operation is
// a constant without LOCK_UN (read from the callee's package).
func flockTakes(info *types.Info, call *ast.CallExpr, api *signals.API) bool {
	how, un, ok := flockOp(info, call, api)
	return ok && how&un == 0
}

// flockReleases reports whether call is a flock(2) with LOCK_UN.
func flockReleases(info *types.Info, call *ast.CallExpr, api *signals.API) bool {
	how, un, ok := flockOp(info, call, api)
	return ok && how&un != 0
}

// flockOp returns a flock(2) call's constant operation and the callee
// package's LOCK_UN; ok is false when either cannot be read.
func flockOp(info *types.Info, call *ast.CallExpr, api *signals.API) (how, un int64, ok bool) {
	i, ok := api.Arg("how")
	if !ok || i >= len(call.Args) {
		return 0, 0, false
	}
	if how, ok = IntConst(info, call.Args[i]); !ok {
		return 0, 0, false
	}
	un, ok = constValue(Callee(info, call).Pkg(), "LOCK_UN")
	return how, un, ok
}

// fdFile returns f of an fd argument int(f.Fd()) (or f.Fd()).
func fdFile(info *types.Info, e ast.Expr) ast.Expr {
	e = ast.Unparen(e)
	if conv, ok := e.(*ast.CallExpr); ok && len(conv.Args) == 1 {
		if tv, ok := info.Types[conv.Fun]; ok && tv.IsType() {
			e = ast.Unparen(conv.Args[0])
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Fd" {
		return nil
	}
	return sel.X
}

// unlockedAfter reports whether the lock is released after the removal rm
// runs: a later unlock (gofrs/flock Unlock or Close, flock(2) LOCK_UN, or
// Close of an *os.File), or a deferred one; a deferred removal needs an
// unlock deferred before it (defers run last in, first out).
func unlockedAfter(info *types.Info, kind func(*ast.CallExpr) *signals.API, body *ast.BlockStmt, deferred map[*ast.CallExpr]bool, rm *ast.CallExpr) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if !releasesLock(info, kind, call) {
			return true
		}
		switch {
		case deferred[rm]:
			found = deferred[call] && call.Pos() < rm.Pos()
		default:
			found = deferred[call] || call.Pos() > rm.End()
		}
		return !found
	})
	return found
}

func releasesLock(info *types.Info, kind func(*ast.CallExpr) *signals.API, call *ast.CallExpr) bool {
	if api := kind(call); api != nil {
		return api.Kind == "flock-unlock" || api.Kind == "flock-fd" && flockReleases(info, call, api)
	}
	fn := Callee(info, call)
	if fn == nil || fn.Name() != "Close" || fn.Pkg() == nil || fn.Pkg().Path() != "os" {
		return false
	}
	return signals.RecvName(fn) == "File"
}

// flockKeys names path expressions and lock handles. A key is a constant
// value, a variable or a field (the same field in any method), the value a
// local variable is assigned once, a handle's Path(), or else the
// expression's text, made distinct per function when it reads local
// variables.
type flockKeys struct {
	info    *types.Info
	kind    func(*ast.CallExpr) *signals.API
	values  map[types.Object][]ast.Expr // values assigned to variables
	handles map[string][]ast.Expr       // gofrs/flock handles: the paths they lock
	params  map[*types.Var]bool         // parameters of the package's functions
}

// handleKeys keys a variable or field that holds a handle or file.
func (k *flockKeys) handleKeys(e ast.Expr) []string {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.Ident:
		if v, ok := k.info.ObjectOf(x).(*types.Var); ok {
			return []string{fmt.Sprintf("var %p", v)}
		}
	case *ast.SelectorExpr:
		if sel, ok := k.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			return []string{fmt.Sprintf("var %p", sel.Obj())}
		}
		if v, ok := k.info.Uses[x.Sel].(*types.Var); ok { // pkg.Var
			return []string{fmt.Sprintf("var %p", v)}
		}
	}
	return nil
}

// handlePaths returns the paths of the gofrs/flock handle e: the argument
// of flock.New when e is that call, or the paths assigned to its variable.
func (k *flockKeys) handlePaths(e ast.Expr) []ast.Expr {
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		if api := k.kind(call); api != nil && api.Kind == "flock-new" {
			if i, ok := api.Arg("path"); ok && i < len(call.Args) {
				return []ast.Expr{call.Args[i]}
			}
		}
		return nil
	}
	var out []ast.Expr
	for _, hk := range k.handleKeys(e) {
		out = append(out, k.handles[hk]...)
	}
	return out
}

func (k *flockKeys) of(e ast.Expr, depth int) []string {
	e = ast.Unparen(e)
	if tv, ok := k.info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() == constant.String {
			return []string{"const " + tv.Value.ExactString()}
		}
		return nil
	}
	if call, ok := e.(*ast.CallExpr); ok && depth < 3 {
		if api := k.kind(call); api != nil && api.Kind == "flock-path" {
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return nil
			}
			var out []string
			for _, p := range k.handlePaths(sel.X) {
				out = append(out, k.of(p, depth+1)...)
			}
			return out
		}
	}
	out := k.handleKeys(e)
	if v := k.variable(e); v != nil && depth < 3 {
		vals := k.values[v]
		switch {
		case k.params[v]:
			// each caller's path (a helper that opens and locks its argument)
			if len(vals) <= 8 {
				for _, val := range vals {
					out = append(out, k.of(val, depth+1)...)
				}
			}
		case len(vals) == 1 && (v.IsField() || v.Pkg() != nil && v.Parent() != v.Pkg().Scope()):
			// a local variable or a field set once
			out = append(out, k.of(vals[0], depth+1)...)
		}
	}
	if len(out) > 0 {
		return out
	}
	return []string{k.text(e)}
}

// text is the expression's text, with the identity of each local variable
// it reads, so `filepath.Join(dir, "lock")` of two functions' own dir
// variables are two paths.
func (k *flockKeys) text(e ast.Expr) string {
	var locals []string
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v, ok := k.info.Uses[id].(*types.Var); ok && !v.IsField() && v.Pkg() != nil && v.Parent() != v.Pkg().Scope() {
			locals = append(locals, fmt.Sprintf("%s=%p", id.Name, v))
		}
		return true
	})
	sort.Strings(locals)
	return "text " + types.ExprString(e) + " " + strings.Join(locals, ",")
}

// variable returns the variable or field e names.
func (k *flockKeys) variable(e ast.Expr) *types.Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := k.info.ObjectOf(x).(*types.Var)
		return v
	case *ast.SelectorExpr:
		if sel, ok := k.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			v, _ := sel.Obj().(*types.Var)
			return v
		}
	}
	return nil
}
