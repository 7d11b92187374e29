package elector_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// api is the exported API of the package in dir as go doc sees it: names
// are "func F", "type T", "method T.M", "const C" and "var V".
type api struct {
	names []string
	// lines is how many lines `go doc` prints for the package after its
	// doc comment: one per const or var group, function, type, and each
	// constructor and const or var group listed under a type.
	lines int
}

func exported(t *testing.T, dir string) api {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	var a api
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			a.lines++
			for _, n := range v.Names {
				a.names = append(a.names, kind+" "+n)
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			a.lines++
			a.names = append(a.names, "func "+f.Name)
		}
	}
	values("const", pkg.Consts)
	values("var", pkg.Vars)
	funcs(pkg.Funcs)
	for _, typ := range pkg.Types {
		a.lines++
		a.names = append(a.names, "type "+typ.Name)
		values("const", typ.Consts)
		values("var", typ.Vars)
		funcs(typ.Funcs)
		for _, m := range typ.Methods {
			a.names = append(a.names, "method "+typ.Name+"."+m.Name)
		}
	}
	slices.Sort(a.names)
	return a
}

// TestAPI keeps the API small where issue 17 found it doubled or leaking:
// one way to read the leader (methods, not also functions), one Migrate in
// pgstore, and no fault-injection hooks in memstore. Changing the API on
// purpose means changing this test, and the CHANGELOG.
func TestAPI(t *testing.T) {
	el := exported(t, ".")
	for _, gone := range []string{"func Leader", "func Observe"} {
		if slices.Contains(el.names, gone) {
			t.Errorf("elector exports %s beside the method of the same name", gone)
		}
	}
	for _, want := range []string{"method Candidate.Leader", "method Candidate.Observe"} {
		if !slices.Contains(el.names, want) {
			t.Errorf("elector lacks %s", want)
		}
	}
	// 38 when issue 17 was filed; the issue asks for fewer.
	if el.lines > 34 {
		t.Errorf("go doc ./elector lists %d names; want at most 34:\n%s", el.lines, strings.Join(el.names, "\n"))
	}

	pg := exported(t, "pgstore")
	if slices.Contains(pg.names, "func Migrate") {
		t.Error("pgstore exports the function Migrate beside the method Store.Migrate")
	}
	if !slices.Contains(pg.names, "method Store.Migrate") {
		t.Error("pgstore lacks the method Store.Migrate")
	}

	mem := exported(t, "memstore")
	want := []string{
		"func New", "func WithClock",
		"method Store.Acquire", "method Store.Read", "method Store.Release", "method Store.Renew", "method Store.Watch",
		"type Option", "type Store",
	}
	if !slices.Equal(mem.names, want) {
		t.Errorf("memstore exports\n\t%s\nwant\n\t%s", strings.Join(mem.names, "\n\t"), strings.Join(want, "\n\t"))
	}
}
