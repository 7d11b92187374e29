package effects

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A buffer object a dependency hands out (ownchannels.go, second shape):
// a call of a package that reaches nothing outside the process
// (pureDependency) computes its result from its arguments, but a result
// that is a pointer is an object the function may write into afterwards,
// so its every use is judged too: each is a call of such a package (a
// method of the object, an encoder wrapping it, a pool's Put) handed only
// own data besides the object, and what the call returns that points to
// memory (the encoder) is judged the same way. An object stored away,
// handed to this package's code or to anything else, is not shown own.

// externalTakes: c calls a function of a package other than this one that
// reaches nothing outside the process, or invokes a method of such a
// package's interface on obj, on own data or on a package-level variable
// of that package (its configured instance, jsonlike.Standard); every
// argument but obj is own input.
func (w *ownWalk) externalTakes(c *ssa.CallCommon, obj ssa.Value, depth int) bool {
	var pkg *types.Package
	if c.IsInvoke() {
		if c.Method == nil || c.Method.Pkg() == nil {
			return false
		}
		pkg = c.Method.Pkg()
		if c.Value != obj && !dependencyGlobal(c.Value, pkg) && !w.ownInput(c.Value, depth) {
			return false
		}
	} else {
		g := c.StaticCallee()
		if g == nil || g.Object() == nil {
			return false
		}
		pkg = g.Object().Pkg()
	}
	if pkg == nil || pkg == w.r.pass.Pkg || pkg.Path() == "reflect" || pkg.Path() == "unsafe" || !w.pureDependency(pkg) {
		return false
	}
	for _, a := range c.Args {
		if a != obj && !w.ownInput(a, depth) {
			return false
		}
	}
	return true
}

// dependencyGlobal: v loads a package-level variable of pkg.
func dependencyGlobal(v ssa.Value, pkg *types.Package) bool {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	g, ok := ld.X.(*ssa.Global)
	return ok && g.Pkg != nil && g.Pkg.Pkg == pkg
}

// ownInput: an argument of a dependency's call is own data; the address of
// a local variable (&entry handed to an encoder) is when every value
// stored into it is.
func (w *ownWalk) ownInput(a ssa.Value, depth int) bool {
	if mi, ok := a.(*ssa.MakeInterface); ok {
		a = mi.X
	}
	if cell, ok := a.(*ssa.Alloc); ok {
		if _, isStruct := cell.Type().(*types.Pointer).Elem().Underlying().(*types.Struct); !isStruct {
			return w.ownCaptured(cell, depth+1)
		}
	}
	return w.own(a, depth+1)
}

// ownResult: every result of the dependency's call v that points to
// memory is an object only written with own data.
func (w *ownWalk) ownResult(v *ssa.Call, depth int) bool {
	tup, ok := v.Type().(*types.Tuple)
	if !ok {
		return !pointsTo(v.Type()) || w.ownObjectUses(v, depth)
	}
	for _, ref := range referrers(v) {
		ex, ok := ref.(*ssa.Extract)
		if !ok {
			return false
		}
		if pointsTo(tup.At(ex.Index).Type()) && !w.ownObjectUses(ex, depth) {
			return false
		}
	}
	return true
}

func pointsTo(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// ownObjectUses: every use of obj writes own data into it or reads it.
func (w *ownWalk) ownObjectUses(obj ssa.Value, depth int) bool {
	if depth > ownDepth || obj.Referrers() == nil {
		return false
	}
	if w.objects == nil {
		w.objects = map[ssa.Value]bool{}
	}
	if done, ok := w.objects[obj]; ok {
		return done
	}
	w.objects[obj] = true // a cycle (the encoder's object seen again): decided by the other uses
	ok := true
	for _, ref := range *obj.Referrers() {
		if !w.objectUse(ref, obj, depth) {
			ok = false
			break
		}
	}
	w.objects[obj] = ok
	return ok
}

// objectUse: the instruction ref that uses obj is a conversion whose
// result is used so, or a dependency's call handed own data besides obj.
func (w *ownWalk) objectUse(ref ssa.Instruction, obj ssa.Value, depth int) bool {
	switch ref := ref.(type) {
	case *ssa.DebugRef:
		return true
	case *ssa.MakeInterface:
		return w.ownObjectUses(ref, depth+1)
	case *ssa.ChangeType:
		return w.ownObjectUses(ref, depth+1)
	case *ssa.ChangeInterface:
		return w.ownObjectUses(ref, depth+1)
	case *ssa.Call:
		if _, builtin := ref.Call.Value.(*ssa.Builtin); builtin {
			return false
		}
		return w.externalTakes(&ref.Call, obj, depth+1) && w.ownResult(ref, depth+1)
	case *ssa.Defer:
		if _, builtin := ref.Call.Value.(*ssa.Builtin); builtin {
			return false
		}
		return w.externalTakes(&ref.Call, obj, depth+1)
	}
	return false // stored away, handed to this package, to a goroutine
}

// emptyArray: the allocation is of an array of length zero (the backing of
// make([]T, 0) with a constant length): nothing is stored into it.
func emptyArray(a *ssa.Alloc) bool {
	arr, ok := a.Type().(*types.Pointer).Elem().Underlying().(*types.Array)
	return ok && arr.Len() == 0
}

// pureDependency: pkg touches nothing outside the process as far as the
// analysis knows: the clock, or a package the knowledge base does not
// name, that imports none it names nor a network, file or process API,
// and whose functions reach no shared state (no Reaches fact).
func (w *ownWalk) pureDependency(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	if standard(pkg.Path()) {
		// The knowledge base names sync and time for their locks and
		// tickers, which stay inside the process.
		return !outsideAPI(pkg.Path())
	}
	if w.r.kb.Knows(pkg.Path()) || w.r.pass.ImportPackageFact(pkg, new(Reaches)) {
		return false
	}
	for _, imp := range pkg.Imports() {
		// A package that imports os (a helper reading a test file)
		// still computes: the local disk is no shared state; the network,
		// other processes and databases are.
		if imp.Path() != "os" && outsideAPI(imp.Path()) || !standard(imp.Path()) && w.r.kb.Knows(imp.Path()) {
			return false
		}
	}
	return true
}

// standard: a path of the standard library (no domain in its first
// element).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// outsideAPI: a standard package that reaches the network, files, other
// processes or a database.
func outsideAPI(path string) bool {
	switch {
	case path == "net" || strings.HasPrefix(path, "net/"), path == "os" || strings.HasPrefix(path, "os/"),
		path == "database/sql", path == "syscall", path == "io/ioutil", path == "plugin":
		return true
	}
	return false
}
