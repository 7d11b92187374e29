package settings_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/config"
)

// A bound suite is one valid analyzer graph of copies: no original that
// reads settings is left in it (its fact types would be registered twice),
// and analyzers that read no settings are shared.
func TestBindCopiesWhatReadsSettings(t *testing.T) {
	all := suite.All()
	if got := settings.Bind(all, config.Source{}); &got[0] != &all[0] {
		t.Errorf("the zero Source copied the analyzers")
	}
	bound := settings.Bind(all, config.Source{Overrides: config.Overrides{Profile: "strict"}})
	if err := analysis.Validate(bound); err != nil {
		t.Fatalf("bound analyzers do not validate: %v", err)
	}
	originals := map[*analysis.Analyzer]bool{}
	var walk func(a *analysis.Analyzer)
	seen := map[*analysis.Analyzer]bool{}
	walk = func(a *analysis.Analyzer) {
		if !seen[a] {
			seen[a] = true
			for _, r := range a.Requires {
				walk(r)
			}
		}
	}
	for _, a := range all {
		walk(a)
	}
	for a := range seen {
		originals[a] = true
	}
	sharedInspect := false
	seen = map[*analysis.Analyzer]bool{}
	for _, a := range bound {
		walk(a)
	}
	for a := range seen {
		if a == inspect.Analyzer {
			sharedInspect = true
			continue
		}
		if originals[a] && requiresSettings(a) {
			t.Errorf("the bound graph still holds the original %s", a.Name)
		}
	}
	if !sharedInspect {
		t.Errorf("inspect.Analyzer is not shared")
	}
}

func requiresSettings(a *analysis.Analyzer) bool {
	if a == settings.Analyzer {
		return true
	}
	for _, r := range a.Requires {
		if requiresSettings(r) {
			return true
		}
	}
	return false
}
