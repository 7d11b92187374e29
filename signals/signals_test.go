package signals

import (
	"go/importer"
	"go/types"
	"strings"
	"testing"
)

func TestBuiltinLoadsAndMatches(t *testing.T) {
	kb, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	timePkg, err := importer.Default().Import("time")
	if err != nil {
		t.Fatal(err)
	}
	newTicker := timePkg.Scope().Lookup("NewTicker").(*types.Func)
	a := kb.Match(Schedulers, newTicker)
	if a == nil || a.Kind != "ticker" {
		t.Fatalf("Match(time.NewTicker) = %v, want the ticker entry", a)
	}
	if i, ok := a.Arg("period"); !ok || i != 0 {
		t.Errorf("period arg = %d, %v", i, ok)
	}
	if kb.Match(Effects, newTicker) != nil {
		t.Errorf("time.NewTicker matched as an effect")
	}
	sqlPkg, err := importer.Default().Import("database/sql")
	if err != nil {
		t.Fatal(err)
	}
	db := sqlPkg.Scope().Lookup("DB").Type()
	exec, _, _ := types.LookupFieldOrMethod(db, true, sqlPkg, "ExecContext")
	if e := kb.Match(Effects, exec.(*types.Func)); e == nil || e.Kind != "sql" {
		t.Fatalf("Match((*sql.DB).ExecContext) = %v", e)
	}
	stmt := sqlPkg.Scope().Lookup("Stmt").Type()
	sexec, _, _ := types.LookupFieldOrMethod(stmt, true, sqlPkg, "ExecContext")
	if e := kb.Match(Effects, sexec.(*types.Func)); e == nil || e.Kind != "write" {
		t.Fatalf("wildcard Exec* did not match (*sql.Stmt).ExecContext: %v", e)
	}
	if !kb.Knows("github.com/robfig/cron/v3") || kb.Knows("fmt") {
		t.Errorf("Knows is wrong")
	}
}

func TestParseKnowledgeStrict(t *testing.T) {
	_, err := ParseKnowledge("x.yaml", []byte("effects:\n  - pkg: a\n    name: B\n    kynd: send\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "x.yaml:4: ") || !strings.Contains(err.Error(), "kynd") {
		t.Fatalf("err = %v, want x.yaml:4: ... kynd", err)
	}
	_, err = ParseKnowledge("x.yaml", []byte("effects:\n  - pkg: a\n"))
	if err == nil || !strings.Contains(err.Error(), "needs pkg and name") {
		t.Fatalf("err = %v", err)
	}
}

func TestChecks(t *testing.T) {
	cs, err := ParseChecks("LE1*,-LE1002,lockexpiry")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"LE1001": true, "LE1002": false, "LE2001": false, "LE3001": true, "LE3003": false, "LE4001": false}
	for id, on := range want {
		if got := cs.Enabled(MustLookup(id)); got != on {
			t.Errorf("%s enabled = %v, want %v", id, got, on)
		}
	}
	cs, _ = ParseChecks("none,LE3003")
	if cs.Enabled(MustLookup("LE1001")) || !cs.Enabled(MustLookup("LE3003")) {
		t.Errorf("none,LE3003 wrong")
	}
	cs, _ = ParseChecks("-LE1002")
	if !cs.Enabled(MustLookup("LE1001")) || cs.Enabled(MustLookup("LE1002")) || cs.Enabled(MustLookup("LE3003")) {
		t.Errorf("-LE1002 should amend the defaults")
	}
	cs, _ = ParseChecks("default,LE3003")
	if !cs.Enabled(MustLookup("LE1001")) || !cs.Enabled(MustLookup("LE3003")) {
		t.Errorf("default,LE3003 should add LE3003 to the defaults")
	}
	cs, _ = ParseChecks("")
	if !cs.Enabled(MustLookup("LE1001")) || cs.Enabled(MustLookup("LE3003")) {
		t.Errorf("an empty list is the defaults")
	}
	if _, err := ParseChecks("LE7*"); err == nil {
		t.Errorf("a pattern matching no rule must be an error")
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || seen[r.Name] {
			t.Errorf("duplicate %s/%s", r.ID, r.Name)
		}
		seen[r.ID], seen[r.Name] = true, true
		if r.Title == "" || r.Help == "" || r.Since == "" {
			t.Errorf("%s lacks title, help or since", r.ID)
		}
	}
	if len(Rules) != 10 {
		t.Errorf("%d rules, want the ten of signals.md", len(Rules))
	}
}

// The commands section: a struct-literal command's fields are found by
// MatchField, a user's entries merge in, and command libraries do not make
// a package relevant to the analyzers (Knows).
func TestCommandFields(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	user, err := ParseKnowledge("user.yaml", []byte("commands:\n  - {pkg: example.com/cli, recv: Command, name: Name, kind: command-field}\n  - {pkg: example.com/cli, recv: Command, name: Action, kind: action-field}\n"))
	if err != nil {
		t.Fatal(err)
	}
	kb := new(Knowledge)
	kb.Merge(builtin)
	kb.Merge(user)
	command := func(path string) *types.Named {
		pkg := types.NewPackage(path, "cli")
		return types.NewNamed(types.NewTypeName(0, pkg, "Command", nil), types.NewStruct(nil, nil), nil)
	}
	cobra, cli := command("github.com/spf13/cobra"), command("example.com/cli")
	for _, c := range []struct {
		t           *types.Named
		field, kind string
	}{
		{cobra, "Use", "command-field"}, {cobra, "RunE", "action-field"}, {cobra, "Short", ""},
		{cli, "Name", "command-field"}, {cli, "Action", "action-field"}, {cli, "Use", ""},
	} {
		got := ""
		if a := kb.MatchField(Commands, c.t, c.field); a != nil {
			got = a.Kind
		}
		if got != c.kind {
			t.Errorf("MatchField(%s.Command, %s) = %q, want %q", c.t.Obj().Pkg().Path(), c.field, got, c.kind)
		}
	}
	if !kb.KnowsIn(Commands, "example.com/cli") || kb.KnowsIn(Effects, "example.com/cli") {
		t.Errorf("KnowsIn is wrong")
	}
	if kb.Knows("github.com/spf13/cobra") || kb.Knows("example.com/cli") {
		t.Errorf("Knows counts a command library")
	}
}
