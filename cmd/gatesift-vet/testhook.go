//go:build gatesift_testhook

package main

// This file is compiled only into the binary the end-to-end tests build
// with -tags gatesift_testhook: it adds a rule that panics on any package
// named boom, to check that a panicking rule becomes an internal-error
// finding and the run goes on.

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/signals"
)

func init() {
	a := rule.New(rule.Spec{
		ID: panickerID(),
		Run: func(p *rule.Pass) error {
			if p.Pkg.Name() == "boom" {
				var m map[string]int
				//lint:ignore SA5000 the panic is the point of this rule
				m["boom"]++ // a real runtime panic, not a panic(string)
			}
			return nil
		},
	})
	// Its own analyzer name: drivers key analyzers by name (unitchecker
	// defines one enable flag per name and panicked with "flag redefined"
	// on -flags while the panicker borrowed a real rule's). Its findings
	// keep the borrowed rule ID through their category.
	a.Name = "gatesifttestpanicker"
	testAnalyzers = func() []*analysis.Analyzer { return []*analysis.Analyzer{a} }
}

// panickerID borrows the registry entry of a default-on rule the suite does
// not implement yet, so its findings are not confused with a real rule's;
// once every default rule is implemented it borrows LE1002's, and only the
// analyzer name (set above) tells the two apart.
func panickerID() string {
	have := map[string]bool{}
	for _, a := range suite.All() {
		have[a.Name] = true
	}
	for _, r := range signals.Rules {
		if r.Default && !have[r.Name] {
			return r.ID
		}
	}
	return "LE1002"
}
