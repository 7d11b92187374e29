// Package suite assembles every gatesift-vet analyzer for a driver: the
// rules of package leaderelection and, last, the directives rule that needs
// them all to have run.
package suite

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/directives"
)

// All returns the analyzers in registry order.
func All() []*analysis.Analyzer {
	out := make([]*analysis.Analyzer, 0, len(leaderelection.Rules)+1)
	out = append(out, leaderelection.Rules...)
	return append(out, directives.Analyzer)
}
