package lockfacts

import (
	"go/ast"
	"go/constant"
	"go/types"

	"github.com/gatesift/gatesift-vet/signals"
)

// FileLock is a lock a project keeps in a file or directory: an acquire
// (Lock, TryLock) that creates it only if it is absent (O_CREATE|O_EXCL, or
// os.Mkdir) and also
// removes a lock file it judges stale, so that the lock can change hands
// while a slow holder still runs; and a release (Unlock, Release) of the
// same type that removes the file without reading it first, so without
// checking that the file is still its own.
type FileLock struct {
	Recv             string
	Acquire, Release *ast.FuncDecl
	Create, Takeover *ast.CallExpr // in the acquire, or a function it calls
	Remove           *ast.CallExpr // in the release, or a function it calls
}

// FileLocks finds the file locks of the package.
func FileLocks(info *types.Info, kb *signals.Knowledge, files []*ast.File) []*FileLock {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			decls[fn] = fd
		}
	}
	excl, ok := oExcl(info, files)
	if !ok {
		return nil
	}
	// the file operations in the body of one function
	type fileOps struct{ creates, removes, reads []*ast.CallExpr }
	own := map[*ast.FuncDecl]*fileOps{}
	opsOf := func(g *ast.FuncDecl) *fileOps {
		if o := own[g]; o != nil {
			return o
		}
		o := &fileOps{}
		ast.Inspect(g.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			api := kb.Match(signals.Locks, Callee(info, call))
			if api == nil {
				return true
			}
			switch api.Kind {
			case "file-create":
				if i, ok := api.Arg("flags"); ok && i < len(call.Args) {
					if flags, ok := IntConst(info, call.Args[i]); ok && flags&excl.create != 0 && flags&excl.excl != 0 {
						o.creates = append(o.creates, call)
					}
				}
			case "file-create-excl":
				o.creates = append(o.creates, call)
			case "file-remove":
				o.removes = append(o.removes, call)
			case "file-read":
				o.reads = append(o.reads, call)
			}
			return true
		})
		own[g] = o
		return o
	}
	// creates: the exclusive creates g makes or reaches, two calls deep
	creates := func(g *ast.FuncDecl) []*ast.CallExpr {
		var out []*ast.CallExpr
		for _, h := range Reached(info, decls, g, 2) {
			out = append(out, opsOf(h).creates...)
		}
		return out
	}
	// acquireOps: the exclusive create an acquire reaches, and a removal
	// of the lock file in a function that itself makes or reaches that
	// create (try to create, else remove the stale file and retry: the
	// takeover of a stale lock, not some cleanup elsewhere).
	acquireOps := func(fd *ast.FuncDecl) (create, takeover *ast.CallExpr) {
		for _, g := range Reached(info, decls, fd, 3) {
			c := creates(g)
			if len(c) == 0 {
				continue
			}
			if create == nil {
				create = c[0]
			}
			if o := opsOf(g); len(o.removes) > 0 && takeover == nil {
				takeover = o.removes[0]
			}
		}
		return create, takeover
	}
	releaseOps := func(fd *ast.FuncDecl) (remove *ast.CallExpr, reads bool) {
		for _, g := range Reached(info, decls, fd, 2) {
			o := opsOf(g)
			if remove == nil && len(o.removes) > 0 {
				remove = o.removes[0]
			}
			reads = reads || len(o.reads) > 0
		}
		return remove, reads
	}
	byRecv := map[string][]*ast.FuncDecl{}
	var recvs []string
	for _, fd := range Funcs(files) {
		r := RecvTypeName(fd)
		if byRecv[r] == nil {
			recvs = append(recvs, r)
		}
		byRecv[r] = append(byRecv[r], fd)
	}
	var out []*FileLock
	released := map[*ast.CallExpr]bool{} // one report per release
	for _, r := range recvs {
		for _, a := range byRecv[r] {
			if !acquireName(a.Name.Name) {
				continue
			}
			create, takeover := acquireOps(a)
			if create == nil || takeover == nil {
				continue
			}
			for _, rel := range byRecv[r] {
				if !releaseName(rel.Name.Name) {
					continue
				}
				remove, reads := releaseOps(rel)
				if remove == nil || reads || released[remove] {
					continue
				}
				released[remove] = true
				out = append(out, &FileLock{Recv: r, Acquire: a, Release: rel,
					Create: create, Takeover: takeover, Remove: remove})
			}
		}
	}
	return out
}

type exclFlags struct{ create, excl int64 }

// oExcl returns the values of os.O_CREATE and os.O_EXCL, read from the os
// package the files import.
func oExcl(info *types.Info, files []*ast.File) (exclFlags, bool) {
	for _, f := range files {
		for _, imp := range f.Imports {
			if imp.Path.Value != `"os"` {
				continue
			}
			var pkg *types.Package
			if imp.Name != nil {
				if pn, ok := info.Defs[imp.Name].(*types.PkgName); ok {
					pkg = pn.Imported()
				}
			} else if pn, ok := info.Implicits[imp].(*types.PkgName); ok {
				pkg = pn.Imported()
			}
			if pkg == nil {
				continue
			}
			c, ok1 := constValue(pkg, "O_CREATE")
			e, ok2 := constValue(pkg, "O_EXCL")
			if ok1 && ok2 {
				return exclFlags{c, e}, true
			}
		}
	}
	return exclFlags{}, false
}

func constValue(pkg *types.Package, name string) (int64, bool) {
	c, ok := pkg.Scope().Lookup(name).(*types.Const)
	if !ok {
		return 0, false
	}
	return constant.Int64Val(constant.ToInt(c.Val()))
}
