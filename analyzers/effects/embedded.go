package effects

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/signals"
)

// SQL on an embedded engine the process opened itself: a database/sql
// handle made by an opener of the engines section (sql.Open with a
// constant driver name of an embedded engine, "sqlite", "sqlite3",
// "duckdb"; sql.OpenDB with a connector of such a driver's package) is a
// file or memory this process holds, and what its statements write is
// local state, per replica, as a write to a local file is. The handle is
// followed by SSA value flow from the effect's receiver: the opener's
// result, a transaction, connection or prepared statement of such a
// handle, a helper of this package returning one, or an unexported field
// or variable of this package (or a local one) that every store sets to
// one (nil aside). Anything else (a parameter, an exported field another
// package may set, another driver) keeps the effect.
//
// The SSA form is asked for only in packages that call such an opener
// themselves (opensEmbedded), or a function of another package whose
// EmbeddedOpener fact says it returns such a handle (a helper that opens
// sqlite and caches the handle in a map). A handle that reaches a
// package as a parameter counts only through its callers: a statement
// run on a parameter handle is linked to it (Effect.Handle), and a call
// that passes an embedded handle there drops it (carryHandle). An
// exported field another package may set never counts.

// embeddedHandle: the receiver of call (a database/sql method) is a handle
// of an embedded engine this package opened.
func (r *Result) embeddedHandle(call *ast.CallExpr) bool {
	if !r.opensEmbedded() {
		return false
	}
	fl := r.flow()
	c := fl.common(call)
	if c == nil || c.IsInvoke() || c.Signature().Recv() == nil || len(c.Args) == 0 {
		return false
	}
	return r.localHandle(fl, c.Args[0], 0)
}

// opensEmbedded: the package calls an opener of an embedded engine with
// its driver (when the opener takes one) a constant of the entry's list;
// memoised.
func (r *Result) opensEmbedded() bool {
	if r.embedded != 0 {
		return r.embedded > 0
	}
	r.embedded = -1
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || r.embedded > 0 {
				return r.embedded < 0
			}
			fn, _ := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
			if a := r.kb.Match(signals.Engines, fn); a != nil {
				if i, ok := a.Arg("driver"); !ok || i < len(call.Args) && slices.Contains(a.Values, first(r.constString(call.Args[i]))) {
					r.embedded = 1 // the connector of OpenDB is judged at the effect
				}
			} else if fn != nil && fn.Pkg() != nil && fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn, new(EmbeddedOpener)) {
				r.embedded = 1
			}
			return true
		})
	}
	return r.embedded > 0
}

// first: the first of two results.
func first(s string, _ bool) string { return s }

// handleMethods: the database/sql methods whose result belongs to the
// engine of their receiver.
var handleMethods = map[string]bool{"Begin": true, "BeginTx": true, "Conn": true, "Prepare": true, "PrepareContext": true, "Stmt": true, "StmtContext": true}

// localHandle: v is a handle of an embedded engine opened in this package.
func (r *Result) localHandle(fl *flow, v ssa.Value, depth int) bool {
	if v == nil || depth > maxDepth {
		return false
	}
	switch x := unwrap(v).(type) {
	case *ssa.Extract:
		return x.Index == 0 && r.localHandle(fl, x.Tuple, depth+1)
	case *ssa.Call:
		return r.localOpen(fl, &x.Call, depth)
	case *ssa.Lookup:
		return r.mapOfHandles(fl, x.X, depth)
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return false
		}
		return r.localStores(fl, storeKey(x.X), depth)
	case *ssa.Phi:
		n := 0
		for _, e := range withoutZeroConsts(x.Edges) {
			if e == x {
				continue
			}
			if !r.localHandle(fl, e, depth+1) {
				return false
			}
			n++
		}
		return n > 0
	}
	return false
}

// localStores: key is a local variable, or an unexported field or package
// variable of this package, and every value stored into it (nil aside) is
// a local handle.
func (r *Result) localStores(fl *flow, key any, depth int) bool {
	switch k := key.(type) {
	case *types.Var:
		if k.Exported() || k.Pkg() != r.pass.Pkg {
			return false // another package may set it
		}
	case *ssa.Global:
		if k.Object() == nil || k.Object().Exported() || k.Pkg == nil || k.Pkg.Pkg != r.pass.Pkg {
			return false
		}
	case *ssa.Alloc:
	default:
		return false
	}
	return r.allLocal(fl, withoutZeroConsts(fl.stores[key]), depth)
}

// allLocal: vals is not empty and every value in it is a local handle.
func (r *Result) allLocal(fl *flow, vals []ssa.Value, depth int) bool {
	if len(vals) == 0 {
		return false
	}
	for _, v := range vals {
		if !r.localHandle(fl, v, depth+1) {
			return false
		}
	}
	return true
}

// localOpen: the call opens an embedded engine, derives a handle from a
// local one, or is a function of this package whose every return of its
// first result is a local handle.
func (r *Result) localOpen(fl *flow, c *ssa.CallCommon, depth int) bool {
	callee := c.StaticCallee()
	if callee == nil {
		return false
	}
	fn, _ := callee.Object().(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	if a := r.kb.Match(signals.Engines, fn); a != nil {
		return engineOpen(a, c)
	}
	if fn.Pkg().Path() == "database/sql" && handleMethods[fn.Name()] && signals.RecvName(fn) != "" && len(c.Args) > 0 {
		return r.localHandle(fl, c.Args[0], depth+1)
	}
	if fn.Pkg() != r.pass.Pkg {
		// an opener of another package: its fact says so
		return r.pass.ImportObjectFact(fn, new(EmbeddedOpener))
	}
	return r.returnsLocal(fl, callee, depth)
}

// returnsLocal: every return of callee's first result (nil aside) is a
// local handle.
func (r *Result) returnsLocal(fl *flow, callee *ssa.Function, depth int) bool {
	if len(callee.Blocks) == 0 {
		return false
	}
	n := 0
	for _, b := range callee.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		if c, ok := ret.Results[0].(*ssa.Const); ok && c.Value == nil {
			continue // return nil, err
		}
		if !r.localHandle(fl, ret.Results[0], depth+1) {
			return false
		}
		n++
	}
	return n > 0
}

// engineOpen: the opener's call names an embedded engine: its driver is a
// constant of the entry's list (open), or its connector's type is declared
// in one of the listed driver packages (open-connector); a constant data
// source that names a network address (scheme://, file: aside) is not
// local.
func engineOpen(a *signals.API, c *ssa.CallCommon) bool {
	arg := func(role string) (ssa.Value, bool) {
		i, ok := a.Arg(role)
		if !ok || i >= len(c.Args) {
			return nil, false
		}
		return c.Args[i], true
	}
	switch a.Kind {
	case "open":
		if d, ok := arg("driver"); ok {
			k, isConst := d.(*ssa.Const)
			if !isConst || k.Value == nil || k.Value.Kind() != constant.String || !slices.Contains(a.Values, constant.StringVal(k.Value)) {
				return false
			}
		}
		if s, ok := arg("dsn"); ok {
			if k, isConst := s.(*ssa.Const); isConst && k.Value != nil && k.Value.Kind() == constant.String {
				dsn := constant.StringVal(k.Value)
				if strings.Contains(dsn, "://") && !strings.HasPrefix(dsn, "file:") {
					return false
				}
			}
		}
		return true
	case "open-connector":
		v, ok := arg("connector")
		if !ok {
			return false
		}
		t := unwrap(v).Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := types.Unalias(t).(*types.Named)
		return ok && named.Obj().Pkg() != nil && slices.Contains(a.Values, named.Obj().Pkg().Path())
	}
	return false
}

// EmbeddedOpener is a function's fact: its first result, whenever not nil,
// is a handle of an embedded engine its package opens.
type EmbeddedOpener struct{}

// AFact marks EmbeddedOpener as a fact.
func (*EmbeddedOpener) AFact() {}

func (*EmbeddedOpener) String() string { return "returns an embedded engine's handle" }

// exportOpeners exports EmbeddedOpener for the functions of this package
// that return a *sql.DB which is always a local handle. Only packages that
// open one (or call another package's opener) build the SSA form for it.
func (r *Result) exportOpeners() {
	// an opener returns a *sql.DB: a package that does not import
	// database/sql has none, and pays nothing here
	if !importsPath(r.pass.Pkg, "database/sql") || !r.opensEmbedded() {
		return
	}
	fl := r.flow()
	for _, f := range fl.funcs {
		fn, _ := f.Object().(*types.Func)
		if fn == nil || fn.Pkg() != r.pass.Pkg || f.Signature.Results().Len() == 0 || !isSQLDB(f.Signature.Results().At(0).Type()) {
			continue
		}
		if r.returnsLocal(fl, f, 0) {
			r.pass.ExportObjectFact(fn, &EmbeddedOpener{})
		}
	}
}

// isSQLDB: t is *database/sql.DB.
func isSQLDB(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Name() == "DB" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "database/sql"
}

// mapOfHandles: m is a load of an unexported map variable of this package
// that is only ever made here (never assigned another map) and whose every
// stored value is a local handle.
func (r *Result) mapOfHandles(fl *flow, m ssa.Value, depth int) bool {
	ld, ok := unwrap(m).(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	g, ok := ld.X.(*ssa.Global)
	if !ok || g.Object() == nil || g.Object().Exported() || g.Pkg == nil || g.Pkg.Pkg != r.pass.Pkg {
		return false
	}
	for _, v := range fl.stores[g] {
		if _, ok := v.(*ssa.MakeMap); !ok {
			return false // the variable is given a map made elsewhere
		}
	}
	return r.allLocal(fl, fl.mapStores[g], depth)
}

// carryHandle: at a call of a helper whose statement e runs on its handle
// parameter e.Handle-1, an embedded engine's handle passed there drops the
// statement (false); a parameter of this function passed there links the
// statement to it; anything else unlinks it (kept).
func (r *Result) carryHandle(call *ast.CallExpr, e *Effect) bool {
	i := e.Handle - 1
	e.Handle = 0
	if i >= len(call.Args) {
		return true
	}
	if p := r.paramIndex(call, call.Args[i]); p >= 0 {
		e.Handle = p + 1
		return true
	}
	if !r.opensEmbedded() {
		return true
	}
	fl := r.flow()
	v := fl.arg(call, i)
	return v == nil || !r.localHandle(fl, v, 0)
}

// importsPath: pkg imports the package path directly.
func importsPath(pkg *types.Package, path string) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == path {
			return true
		}
	}
	return false
}
