package leadership_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

const src = `package p

import (
	"flag"
	"time"
)

const lease = 15 * time.Second

var (
	retry    = 2 * time.Second // written once
	renew    = lease - 5*time.Second
	tuned    = time.Second // address taken below
	bumped   = time.Second // reassigned below
	Exported = time.Second // other packages may set it
)

func init() {
	flag.DurationVar(&tuned, "tuned", tuned, "")
	bumped = 3 * time.Second
}

func f(param time.Duration) {
	local := 3 * retry
	_ = []time.Duration{lease, retry, renew, tuned, bumped, Exported, local, param, time.Duration(2) * local, local / 2}
}
`

func TestConsts(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	c := leadership.NewConsts(info, pkg, []*ast.File{f})
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.CompositeLit); ok {
			lit = l
		}
		return true
	})
	want := []struct {
		ok bool
		v  int64
	}{
		{true, 15e9}, {true, 2e9}, {true, 10e9}, {false, 0}, {false, 0}, {false, 0}, {true, 6e9}, {false, 0}, {true, 12e9}, {true, 3e9},
	}
	for i, e := range lit.Elts {
		v, ok := c.Int64(e)
		if ok != want[i].ok || v != want[i].v {
			t.Errorf("element %d (%s): got %d, %v; want %d, %v", i, types.ExprString(e), v, ok, want[i].v, want[i].ok)
		}
	}
}
