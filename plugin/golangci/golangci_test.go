package golangci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/config"
)

// resetOverrides restores package config's process-wide overrides after a
// test, since New sets them.
func resetOverrides(t *testing.T) {
	saved := config.Overrides
	t.Cleanup(func() { config.Overrides = saved })
}

// The settings in these tests are what golangci-lint hands a plugin: YAML
// decoded by viper into maps, slices and scalars, keys lowercased.

func TestNewRegistered(t *testing.T) {
	resetOverrides(t)
	newPlugin, err := register.GetPlugin(Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatalf("New(nil): %v", err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	want := suite.All()
	if len(as) != len(want) {
		t.Fatalf("BuildAnalyzers() returned %d analyzers, want %d", len(as), len(want))
	}
	for i := range want {
		if as[i] != want[i] {
			t.Errorf("analyzer %d = %s, want %s", i, as[i].Name, want[i].Name)
		}
	}
	if err := analysis.Validate(as); err != nil {
		t.Errorf("analyzers do not validate: %v", err)
	}
	if config.Overrides.Checks != "" || config.Overrides.Profile != "" || config.Overrides.File != "" {
		t.Errorf("New(nil) changed the overrides: %+v", config.Overrides)
	}
}

func TestNewChecksAndProfileAreOverrides(t *testing.T) {
	resetOverrides(t)
	p, err := New(map[string]any{
		"checks":  []any{"LE1*", "-LE1002"},
		"profile": "strict",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := config.Overrides.Checks; got != "LE1*,-LE1002" {
		t.Errorf("Overrides.Checks = %q", got)
	}
	if got := config.Overrides.Profile; got != "strict" {
		t.Errorf("Overrides.Profile = %q", got)
	}
	// Discovery of the project's .gatesift.yaml must stay on.
	if f := p.(*Plugin).File; f != "" || config.Overrides.File != "" {
		t.Errorf("checks and profile alone wrote a config file %q", f)
	}
}

func TestNewFullSettingsReplaceDiscovery(t *testing.T) {
	resetOverrides(t)
	// Keys arrive lowercased from viper; rule IDs must still resolve.
	p, err := New(map[string]any{
		"checks":   []any{"all"},
		"tests":    true,
		"severity": map[string]any{"le1001": "warning"},
		"knowledge": map[string]any{
			"schedulers": []any{map[string]any{
				"pkg": "example.com/acme/cron", "name": "Every", "kind": "ticker",
				"args": map[string]any{"fn": 1},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	file := p.(*Plugin).File
	if file == "" || config.Overrides.File != file {
		t.Fatalf("File = %q, Overrides.File = %q: want the same written file", file, config.Overrides.File)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(file)) })
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(file, data)
	if err != nil {
		t.Fatalf("the written file does not parse: %v\n%s", err, data)
	}
	if !c.Tests || len(c.Checks) != 1 || c.Checks[0] != "all" || c.Severity["le1001"] != "warning" {
		t.Errorf("written config lost settings: %+v", c)
	}
	if c.Knowledge == nil || len(c.Knowledge.Schedulers) != 1 || c.Knowledge.Schedulers[0].Args["fn"] != 1 {
		t.Errorf("written config lost the knowledge entry:\n%s", data)
	}
}

func TestNewSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings any
		want     string
	}{
		{"unknown key", map[string]any{"chekcs": []any{"LE1001"}}, "chekcs"},
		{"bad check", map[string]any{"checks": []any{"LE7777"}}, "LE7777"},
		{"bad profile", map[string]any{"profile": "paranoid"}, "paranoid"},
		{"bad severity", map[string]any{"severity": map[string]any{"LE1001": "fatal"}}, "fatal"},
		{"severity of unknown rule", map[string]any{"severity": map[string]any{"LE0000": "note"}}, "LE0000"},
		{"wrong type", map[string]any{"checks": "LE1001"}, "checks"},
		{"exclude", map[string]any{"exclude": []any{"gen/*"}}, "linters.exclusions.paths"},
		{"knowledge without pkg", map[string]any{"knowledge": map[string]any{
			"locks": []any{map[string]any{"name": "Lock"}}}}, "pkg"},
		{"not JSON", map[string]any{"checks": func() {}}, "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetOverrides(t)
			p, err := New(tc.settings)
			if err == nil {
				t.Fatalf("New(%v) = %+v, want an error", tc.settings, p)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if config.Overrides.Checks != "" || config.Overrides.Profile != "" || config.Overrides.File != "" {
				t.Errorf("a failed New changed the overrides: %+v", config.Overrides)
			}
		})
	}
}

// TestPluginReportsOnExample runs the plugin's analyzers the way
// golangci-lint does (type information, facts across packages) on
// examples/flagged, with settings that turn one rule off, and checks that
// the rules report and that the settings took effect.
func TestPluginReportsOnExample(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks examples/flagged and its dependencies")
	}
	resetOverrides(t)
	p, err := New(map[string]any{"checks": []any{"-LE1002"}})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: "../../examples/flagged"}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%d errors loading examples/flagged", n)
	}
	g, err := checker.Analyze(as, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for act := range g.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			found[d.Category]++
		}
	}
	t.Logf("findings by rule: %v", found)
	if found["LE1001"] == 0 {
		t.Errorf("no LE1001 finding on examples/flagged (its markers expect several)")
	}
	// Without the setting, LE1002 reports the RUN_SCHEDULER loop.
	if found["LE1002"] != 0 {
		t.Errorf("LE1002 reported %d times although the settings disable it", found["LE1002"])
	}
}
