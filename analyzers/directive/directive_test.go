package directive

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestParse(t *testing.T) {
	src := `package p

//gatesift:file-ignore LE3003 -- we fence at the database
//gatesift:ignore LE1001,lockexpiry -- the lock is advisory here
var a = 1

var b = 2 //gatesift:ignore LE1001

//gatesift:per-replica -- cache refresh
func refresh() {}

//gatesift:leader-only
func billing() {}

//gatesift:frobnicate
//gatesift:ignore LE7777 -- typo
//gatesift:per-replica
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	s := Parse(fset, []*ast.File{f})
	if len(s.All) != 8 {
		t.Fatalf("%d directives, want 8", len(s.All))
	}
	problems := map[int]string{}
	for _, d := range s.All {
		problems[d.Line] = d.Problem
	}
	for line, bad := range map[int]bool{3: false, 4: false, 7: true, 9: false, 12: false, 15: true, 16: true, 17: true} {
		if (problems[line] != "") != bad {
			t.Errorf("line %d: problem %q, want malformed=%v", line, problems[line], bad)
		}
	}
	var5 := f.Decls[0].Pos()
	if d := s.Suppressor(fset, "LE3001", var5); d == nil || d.Line != 4 || !d.Used() {
		t.Errorf("ignore on the line above did not suppress LE3001 (by name): %+v", d)
	}
	if d := s.Suppressor(fset, "LE3003", var5); d == nil || d.Kind != FileIgnore {
		t.Errorf("file-ignore did not apply")
	}
	if d := s.Suppressor(fset, "LE1001", f.Decls[1].Pos()); d != nil {
		t.Errorf("a directive without a reason suppressed a finding")
	}
	if d := s.OnFunc(fset, PerReplica, f.Decls[2].(*ast.FuncDecl)); d == nil || d.Reason != "cache refresh" {
		t.Errorf("per-replica on a func not found: %+v", d)
	}
	if d := s.OnFunc(fset, LeaderOnly, f.Decls[3].(*ast.FuncDecl)); d == nil {
		t.Errorf("leader-only not found")
	}
}
