package staticleader

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/localsingleton"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE1002.
var Analyzer = rule.New(rule.Spec{
	ID:       "LE1002",
	Run:      run,
	Requires: []*analysis.Analyzer{jobs.Analyzer},
})

func run(p *rule.Pass) error {
	res := p.ResultOf[jobs.Analyzer].(*jobs.Result)
	strict := p.Settings.Strict()
	for _, j := range res.Jobs {
		if !j.Singleton(strict) || j.Designation == "" {
			continue
		}
		var related []analysis.RelatedInformation
		if j.DesignationNode != nil {
			related = append(related, rule.Related(j.DesignationNode,
				"static designation: %s picks the instance; nothing takes over when it dies", j.Designation))
		}
		for i, e := range j.Effects {
			if i < len(j.EffectCalls) && e.Duplicates(strict) && len(related) < 4 {
				related = append(related, rule.Related(j.EffectCalls[i], "effect: %s", localsingleton.Describe(e)))
			}
		}
		p.Reportf(j.Site, related,
			"%s runs %s only where %s enables it: it %s; a static designation has no expiry and no takeover "+
				"(the work stops when that instance dies, and runs twice when the setting is copied); "+
				"compete for a lease instead (elector.Run, client-go leaderelection)",
			j.SiteName, j.WorkName, j.Designation, localsingleton.Summarize(j.Shared(strict)))
	}
	return nil
}
