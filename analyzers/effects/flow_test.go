package effects

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// The SSA program creates the direct imports only, so a method of an
// import's import (here log's, reached through mid without importing log)
// is built on demand without an SSA package; isMessage must still see that
// it is log's.
func TestIsMessageThroughIndirectImport(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := map[string]*types.Package{}
	check := func(path, src string, info *types.Info) (*types.Package, *ast.File) {
		f, err := parser.ParseFile(fset, path+".go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		conf := types.Config{Importer: importerFunc(func(p string) (*types.Package, error) { return pkgs[p], nil })}
		pkg, err := conf.Check(path, fset, []*ast.File{f}, info)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[path] = pkg
		return pkg, f
	}
	check("log", `package log
type Logger struct{}
func (*Logger) Printf(format string, v ...any) {}`, nil)
	check("mid", `package mid
import "log"
var L *log.Logger
type Store struct{}
func (*Store) Printf(format string, v ...any) {}
var S *Store`, nil)
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{}, Scopes: map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, FileVersions: map[*ast.File]string{},
	}
	app, f := check("app", `package app
import "mid"
func f() {
	mid.L.Printf("a log message")
	mid.S.Printf("not a log message")
}`, info)
	r := &Result{pass: &analysis.Pass{Fset: fset, Pkg: app, Files: []*ast.File{f}, TypesInfo: info}}
	got := map[string]bool{}
	for _, calls := range r.flow().calls {
		for _, c := range calls {
			if fn := c.StaticCallee(); fn != nil && fn.Name() == "Printf" {
				got[fn.Object().Pkg().Path()] = isMessage(c)
			}
		}
	}
	if !got["log"] {
		t.Errorf("(*log.Logger).Printf through mid: isMessage false, want true (calls seen: %v)", got)
	}
	if v, ok := got["mid"]; !ok || v {
		t.Errorf("(*mid.Store).Printf: isMessage %v (seen %v), want false", v, ok)
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// The package's init is built without the initializers of constant tables,
// which flow records nothing of, and with every other one: a struct
// literal's field stores, a call, a variable named like an identity (whose
// name decides when no store is in sight).
func TestWithoutConstantTables(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", `package p
const base = 10
var table = [...]int16{1, 2, base + 3}
var names = []string{"a", "b"}
var byName = map[string][2]int{"a": {1, 2}, "b": {3, base}}
var sparse = [8]string{3: "x"}
var hostname = []string{"h"}
var rows = []struct{ q string }{{"SELECT 1"}}
var ptrs = []*[2]int{{1, 2}}
var computed = []int{f()}
var mixed = []any{1, v}
var v = 1
func f() int { return 1 }
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{}, Scopes: map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, FileVersions: map[*ast.File]string{},
	}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, init := range withoutConstantTables(info).InitOrder {
		kept = append(kept, init.Lhs[0].Name())
	}
	if got, want := strings.Join(kept, " "), "hostname rows ptrs computed v mixed"; got != want {
		t.Errorf("initializers built: %s, want %s", got, want)
	}
	if len(info.InitOrder) != 10 {
		t.Errorf("the pass's own InitOrder was changed: %d entries", len(info.InitOrder))
	}
	// The struct table's store into its field is still recorded.
	r := &Result{pass: &analysis.Pass{Fset: fset, Pkg: pkg, Files: []*ast.File{f}, TypesInfo: info}}
	stored := false
	for k, vals := range r.flow().stores {
		if fv, ok := k.(*types.Var); ok && fv.Name() == "q" && len(vals) == 1 {
			stored = true
		}
	}
	if !stored {
		t.Error("the store into field q of rows is not recorded")
	}
}
