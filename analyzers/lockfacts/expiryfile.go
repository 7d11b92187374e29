package lockfacts

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gatesift/gatesift-vet/signals"
)

// ExpiryFileLock is a lock a project keeps in a file whose content is its
// expiry: an acquire (Lock, TryLock, Acquire) that writes the file with
// time.Now().Add(ttl) in it (os.Create, os.WriteFile) and treats an
// existing file whose expiry has passed as free (it compares a time with
// time.Now), and a release that removes the file: a function literal the
// acquire returns, or the Unlock/Release method of the same type.
//
// Remove is nil when the release reads the file first (read, compare, then
// remove: it may check that the file is still this holder's). Refreshed
// says the package rewrites this lock's file (the same path variable, field
// or constant as the acquire's write) in a loop or touches it (os.Chtimes):
// the expiry is extended while the lock is held, and the lock is left alone.
type ExpiryFileLock struct {
	Recv      string
	Acquire   *ast.FuncDecl
	Write     *ast.CallExpr // the write of the file, in the acquire or a function it calls
	Expiry    *ast.CallExpr // the time.Now().Add call whose result the file holds
	Stale     ast.Node      // the comparison with time.Now that frees an expired file
	Remove    *ast.CallExpr // the removal in the release
	Release   string        // the release's label: "the returned func", "(T).Unlock"
	Refreshed bool
}

// ExpiryFileLocks finds the expiry file locks of the package.
func ExpiryFileLocks(info *types.Info, kb *signals.Knowledge, files []*ast.File) []*ExpiryFileLock {
	// Fast exit: most packages declare no Lock-like function, and the
	// refresh scan below matches every call against the knowledge base.
	acquires := false
	for _, fd := range Funcs(files) {
		if acquireName(fd.Name.Name) {
			acquires = true
			break
		}
	}
	if !acquires {
		return nil
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			decls[fn] = fd
		}
	}
	kind := func(call *ast.CallExpr) string {
		if api := kb.Match(signals.Locks, Callee(info, call)); api != nil {
			return api.Kind
		}
		return ""
	}
	// pathOf: the path argument of a file call the knowledge base names
	pathOf := func(call *ast.CallExpr) ast.Expr {
		if api := kb.Match(signals.Locks, Callee(info, call)); api != nil {
			if i, ok := api.Arg("path"); ok && i < len(call.Args) {
				return call.Args[i]
			}
		}
		return nil
	}
	keys := newPathKeys(info, files)
	refreshes := refreshedPaths(keys, kind, pathOf, files)
	var out []*ExpiryFileLock
	for _, a := range Funcs(files) {
		if !acquireName(a.Name.Name) {
			continue
		}
		l := &ExpiryFileLock{Recv: RecvTypeName(a), Acquire: a}
		reached := Reached(info, decls, a, 2)
		for _, g := range reached {
			ast.Inspect(g.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if kind(n) == "file-write" && l.Write == nil {
						if e := writtenExpiry(info, decls, kind, g.Body); e != nil {
							l.Write, l.Expiry = n, e
						}
					}
					if l.Stale == nil && comparesNow(info, n) {
						l.Stale = n
					}
				case *ast.BinaryExpr:
					if l.Stale == nil && isOrder(n.Op) && (nowIn(info, n.X) || nowIn(info, n.Y)) {
						l.Stale = n
					}
				}
				return true
			})
		}
		if l.Write == nil || l.Stale == nil {
			continue
		}
		if p := pathOf(l.Write); p != nil {
			for _, k := range keys.of(p) {
				l.Refreshed = l.Refreshed || refreshes[k]
			}
		}
		// the release: a function literal of the acquire, or a release
		// method of its type
		found := false
		for _, g := range reached {
			ast.Inspect(g.Body, func(n ast.Node) bool {
				lit, ok := n.(*ast.FuncLit)
				if !ok || found {
					return !found
				}
				remove, reads := fileRelease(kind, lit.Body)
				if remove != nil {
					found = true
					l.Release = "the release func " + a.Name.Name + " returns"
					if !reads {
						l.Remove = remove
					}
				}
				return false
			})
		}
		if !found && l.Recv != "" {
			for _, rel := range Funcs(files) {
				if RecvTypeName(rel) != l.Recv || !releaseName(rel.Name.Name) {
					continue
				}
				var remove *ast.CallExpr
				reads := false
				for _, g := range Reached(info, decls, rel, 2) {
					r, rd := fileRelease(kind, g.Body)
					if remove == nil {
						remove = r
					}
					reads = reads || rd
				}
				if remove != nil {
					found = true
					l.Release = FuncLabel(l.Recv, rel.Name.Name)
					if !reads {
						l.Remove = remove
					}
					break
				}
			}
		}
		if found {
			out = append(out, l)
		}
	}
	return out
}

// fileRelease returns the first file removal in body, and whether body also
// reads a file (the holder's value read back before the removal).
func fileRelease(kind func(*ast.CallExpr) string, body *ast.BlockStmt) (remove *ast.CallExpr, reads bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			switch kind(call) {
			case "file-remove":
				if remove == nil {
					remove = call
				}
			case "file-read":
				reads = true
			}
		}
		return true
	})
	return remove, reads
}

// refreshedPaths returns the paths (by pathKeyOf) that some function of
// the package touches (os.Chtimes) or writes inside a loop: that lock
// file's expiry may be extended while it is held, and a fixed expiry
// cannot be told apart. A refresh of one lock file says nothing of another.
func refreshedPaths(keys *pathKeys, kind func(*ast.CallExpr) string, pathOf func(*ast.CallExpr) ast.Expr, files []*ast.File) map[pathKey]bool {
	out := map[pathKey]bool{}
	var visit func(n ast.Node, inLoop bool)
	visit = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.ForStmt:
				if m != n {
					visit(m.Body, true)
					return false
				}
			case *ast.RangeStmt:
				if m != n {
					visit(m.Body, true)
					return false
				}
			case *ast.CallExpr:
				switch k := kind(m); {
				case k == "file-touch", k == "file-write" && inLoop:
					if p := pathOf(m); p != nil {
						for _, k := range keys.of(p) {
							out[k] = true
						}
					}
				}
			}
			return true
		})
	}
	for _, f := range files {
		visit(f, false)
	}
	return out
}

// pathKey names a file path expression: the variable or field it reads
// (the same field in any method, whatever the receiver's name), its
// constant value, or else its text.
type pathKey struct {
	obj  types.Object
	text string
}

// pathKeys keys path expressions; a local variable assigned once is also
// keyed by the text of its value, so `p := filepath.Join(dir, name)` in the
// acquire and the same join in the refresher name one file.
type pathKeys struct {
	info   *types.Info
	values map[types.Object][]ast.Expr // the values assigned to local variables
}

func newPathKeys(info *types.Info, files []*ast.File) *pathKeys {
	k := &pathKeys{info: info, values: map[types.Object][]ast.Expr{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, l := range as.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if obj := info.ObjectOf(id); obj != nil {
							k.values[obj] = append(k.values[obj], as.Rhs[i])
						}
					}
				}
			}
			return true
		})
	}
	return k
}

func (k *pathKeys) of(e ast.Expr) []pathKey {
	e = ast.Unparen(e)
	if tv, ok := k.info.Types[e]; ok && tv.Value != nil {
		return []pathKey{{text: "const " + tv.Value.ExactString()}}
	}
	switch x := e.(type) {
	case *ast.Ident:
		if v, ok := k.info.Uses[x].(*types.Var); ok {
			out := []pathKey{{obj: v}}
			if vals := k.values[v]; len(vals) == 1 && !v.IsField() && v.Parent() != v.Pkg().Scope() {
				out = append(out, pathKey{text: "value " + types.ExprString(vals[0])})
			}
			return out
		}
	case *ast.SelectorExpr:
		if sel, ok := k.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			return []pathKey{{obj: sel.Obj()}}
		}
	}
	return []pathKey{{text: types.ExprString(e)}}
}

// writtenExpiry returns a time.Now().Add(...) call that is written to a
// file in body: inside the arguments of a file write (os.WriteFile, or a
// Write, WriteString or Fprint call), directly or in what a package
// function called there returns. A deadline a retry loop compares with the
// clock is not written, and is no expiry.
func writtenExpiry(info *types.Info, decls map[*types.Func]*ast.FuncDecl, kind func(*ast.CallExpr) string, body *ast.BlockStmt) *ast.CallExpr {
	// values assigned in body, by the text of what they are assigned to
	// (stamp := ..., l.mine = ...): the write may name the value
	assigned := map[string][]ast.Expr{}
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				k := types.ExprString(l)
				assigned[k] = append(assigned[k], as.Rhs[i])
			}
		}
		return true
	})
	var out *ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || out != nil {
			return out == nil
		}
		if !writesContent(info, kind, call) {
			return true
		}
		for _, a := range call.Args {
			if e := expiryIn(info, decls, a, 2); e != nil {
				out = e
				return false
			}
			ast.Inspect(a, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.Ident, *ast.SelectorExpr:
					for _, v := range assigned[types.ExprString(m.(ast.Expr))] {
						if e := expiryIn(info, decls, v, 2); e != nil && out == nil {
							out = e
						}
					}
				}
				return out == nil
			})
		}
		return out == nil
	})
	return out
}

// writesContent: os.WriteFile, f.Write, f.WriteString, fmt.Fprint*.
func writesContent(info *types.Info, kind func(*ast.CallExpr) string, call *ast.CallExpr) bool {
	if kind(call) == "file-write" {
		return true
	}
	fn := Callee(info, call)
	if fn == nil {
		return false
	}
	switch fn.Name() {
	case "Write", "WriteString":
		return fn.Type().(*types.Signature).Recv() != nil
	case "Fprint", "Fprintf", "Fprintln":
		return fn.Pkg() != nil && fn.Pkg().Path() == "fmt"
	}
	return false
}

// expiryIn returns a time.Now().Add(...) call in e, or in the results a
// package function called in e returns, depth calls deep.
func expiryIn(info *types.Info, decls map[*types.Func]*ast.FuncDecl, e ast.Node, depth int) *ast.CallExpr {
	var out *ast.CallExpr
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || out != nil {
			return out == nil
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" && isTimeNow(info, sel.X) {
			out = call
			return false
		}
		if fd := decls[Callee(info, call)]; fd != nil && depth > 0 {
			ast.Inspect(fd.Body, func(m ast.Node) bool {
				if r, ok := m.(*ast.ReturnStmt); ok && out == nil {
					for _, res := range r.Results {
						if x := expiryIn(info, decls, res, depth-1); x != nil {
							out = x
						}
					}
				}
				_, lit := m.(*ast.FuncLit)
				return out == nil && !lit
			})
		}
		return true
	})
	return out
}

// comparesNow: t.After(time.Now()), time.Now().Before(t), t.Compare(...),
// time.Since(t), time.Until(t).
func comparesNow(info *types.Info, call *ast.CallExpr) bool {
	fn := Callee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return false
	}
	switch fn.Name() {
	case "Since", "Until":
		return fn.Type().(*types.Signature).Recv() == nil
	case "After", "Before", "Compare":
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || fn.Type().(*types.Signature).Recv() == nil {
			return false
		}
		if nowIn(info, sel.X) {
			return true
		}
		for _, a := range call.Args {
			if nowIn(info, a) {
				return true
			}
		}
	}
	return false
}

func isOrder(op token.Token) bool {
	return op == token.LSS || op == token.GTR || op == token.LEQ || op == token.GEQ
}

// nowIn says e contains a call of time.Now.
func nowIn(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && isTimeNow(info, x) {
			found = true
		}
		return !found
	})
	return found
}

func isTimeNow(info *types.Info, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := Callee(info, call)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "Now"
}
