package lockfacts

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestLeaseSeconds: Azure lease durations fold from constants and from
// int32(d.Seconds()) of a constant time.Duration, and nothing else.
func TestLeaseSeconds(t *testing.T) {
	const src = `package p

import "time"

const ttl = 20 * time.Second

var dyn = 30 * time.Second

var (
	a = int32(30)
	b = int32(ttl.Seconds())
	c = int32((45 * time.Second).Seconds())
	d = int32(dyn.Seconds())
	e = int32(1500 * time.Millisecond / time.Second)
	f = int32((1500 * time.Millisecond).Seconds())
)
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("p", fset, []*ast.File{file}, info); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		v  int64
		ok bool
	}{"a": {30, true}, "b": {20, true}, "c": {45, true}, "d": {0, false}, "e": {1, true}, "f": {0, false}}
	ast.Inspect(file, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		name := vs.Names[0].Name
		w, ok := want[name]
		if !ok {
			return true
		}
		v, got := leaseSeconds(info, vs.Values[0])
		if got != w.ok || (got && v != w.v) {
			t.Errorf("%s: leaseSeconds = %d, %v; want %d, %v", name, v, got, w.v, w.ok)
		}
		return true
	})
}
