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

// The settings in these tests are what golangci-lint hands a plugin: YAML
// decoded by viper into maps, slices and scalars, keys lowercased.

func TestNewRegistered(t *testing.T) {
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
	if src := p.(*Plugin).Source; src.Overrides != (config.Overrides{}) {
		t.Errorf("New(nil) has overrides: %+v", src.Overrides)
	}
}

func TestNewChecksAndProfileAreOverrides(t *testing.T) {
	p, err := New(map[string]any{
		"checks":  []any{"LE1*", "-LE1002"},
		"profile": "strict",
	})
	if err != nil {
		t.Fatal(err)
	}
	src := p.(*Plugin).Source
	if src.Checks != "LE1*,-LE1002" {
		t.Errorf("Source.Checks = %q", src.Checks)
	}
	if src.Profile != "strict" {
		t.Errorf("Source.Profile = %q", src.Profile)
	}
	// Discovery of the project's .gatesift.yaml must stay on.
	if src.File != "" || src.Config != nil {
		t.Errorf("checks and profile alone replaced discovery: %+v", src.Overrides)
	}
}

func TestNewFullSettingsReplaceDiscovery(t *testing.T) {
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
	src := p.(*Plugin).Source
	c := src.Config
	if c == nil || src.File != "" || src.Checks != "" || src.Profile != "" {
		t.Fatalf("Source = %+v: want the settings as the whole configuration", src.Overrides)
	}
	if !c.Tests || len(c.Checks) != 1 || c.Checks[0] != "all" || c.Severity["le1001"] != "warning" {
		t.Errorf("the configuration lost settings: %+v", c)
	}
	if c.Knowledge == nil || len(c.Knowledge.Schedulers) != 1 || c.Knowledge.Schedulers[0].Args["fn"] != 1 {
		t.Errorf("the configuration lost the knowledge entry: %+v", c.Knowledge)
	}
	// The settings replace discovery: a directory with its own
	// .gatesift.yaml resolves to them.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte("checks: [none]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := src.ForDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Enabled("LE3003") || !s.Config.Tests || s.File != "" {
		t.Errorf("ForDir used the discovered file, not the settings: %+v", s)
	}
	if !s.Knowledge.Knows("example.com/acme/cron") {
		t.Errorf("the settings' knowledge is not in the resolved knowledge base")
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
			p, err := New(tc.settings)
			if err == nil {
				t.Fatalf("New(%v) = %+v, want an error", tc.settings, p)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
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
	found := findingsOn(t, as, pkgs)
	t.Logf("findings by rule: %v", found)
	if found["LE1001"] == 0 {
		t.Errorf("no LE1001 finding on examples/flagged (its markers expect several)")
	}
	// Without the setting, LE1002 reports the RUN_SCHEDULER loop.
	if found["LE1002"] != 0 {
		t.Errorf("LE1002 reported %d times although the settings disable it", found["LE1002"])
	}
}

// findingsOn runs analyzers the way golangci-lint does on pkgs and counts
// the root findings by rule.
func findingsOn(t *testing.T, as []*analysis.Analyzer, pkgs []*packages.Package) map[string]int {
	t.Helper()
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
	return found
}

// TestTwoPluginsInOneProcess builds two plugins with opposite settings, as
// two golangci-lint configurations in one process would, and runs the
// first after the second was built: each must keep its own settings. One
// takes the override path (checks only), the other the whole-configuration
// path (severity makes it one).
func TestTwoPluginsInOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks examples/flagged and its dependencies")
	}
	noLE1001, err := New(map[string]any{"checks": []any{"default", "-LE1001"}, "severity": map[string]any{"LE1002": "note"}})
	if err != nil {
		t.Fatal(err)
	}
	noLE1002, err := New(map[string]any{"checks": []any{"-LE1002"}})
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
	for _, tc := range []struct {
		name    string
		plugin  register.LinterPlugin
		off, on string
	}{
		{"checks default,-LE1001 with severity", noLE1001, "LE1001", "LE1002"},
		{"checks -LE1002", noLE1002, "LE1002", "LE1001"},
	} {
		as, err := tc.plugin.BuildAnalyzers()
		if err != nil {
			t.Fatal(err)
		}
		found := findingsOn(t, as, pkgs)
		t.Logf("%s: findings by rule: %v", tc.name, found)
		if found[tc.off] != 0 {
			t.Errorf("%s: %s reported %d times although these settings disable it", tc.name, tc.off, found[tc.off])
		}
		if found[tc.on] == 0 {
			t.Errorf("%s: no %s finding on examples/flagged, although these settings enable it", tc.name, tc.on)
		}
	}
}
