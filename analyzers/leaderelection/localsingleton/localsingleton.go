package localsingleton

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE1001.
var Analyzer = rule.New(rule.Spec{
	ID:       "LE1001",
	Run:      run,
	Requires: []*analysis.Analyzer{jobs.Analyzer},
})

func run(p *rule.Pass) error {
	res := p.ResultOf[jobs.Analyzer].(*jobs.Result)
	strict := p.Settings.Strict()
	for _, j := range res.Jobs {
		if !j.Singleton(strict) || j.Designation != "" {
			continue
		}
		shared := j.Shared(strict)
		var related []analysis.RelatedInformation
		for i, e := range j.Effects {
			if i < len(j.EffectCalls) && e.Duplicates(strict) && len(related) < 4 {
				related = append(related, rule.Related(j.EffectCalls[i], "effect: %s", Describe(e)))
			}
		}
		guard := "guarded by nothing"
		if j.Guard != "" {
			guard = "guarded only by " + j.Guard
			if j.GuardNode != nil {
				related = append(related, rule.Related(j.GuardNode, "process-local guard: it keeps the work single within one process only"))
			}
		}
		p.Reportf(j.Site, related,
			"%s runs %s on every replica%s: it %s; %s, so N replicas do it N times; "+
				"run it under a lease (elector.Run, client-go leaderelection) or claim the work (SKIP LOCKED, compare-and-set)",
			j.SiteName, j.WorkName, schedule(j), Summarize(shared), guard)
	}
	return nil
}

func schedule(j *jobs.Job) string {
	if j.Schedule == "" {
		return ""
	}
	return " " + j.Schedule
}

// Describe renders one effect for related information.
func Describe(e effects.Effect) string {
	if e.ReadModifyWrite != "" {
		s := "read-modify-write: " + e.ReadModifyWrite + " via " + e.API
		if e.Via != "" {
			s += " (reached through " + e.Via + ")"
		}
		return s
	}
	s := verb(e.Kind)
	if e.Resource != "" {
		s += " " + e.Resource
	}
	s += " via " + e.API
	if e.Via != "" {
		s += " (reached through " + e.Via + ")"
	}
	if e.Idempotent {
		s += ", idempotent"
	}
	if e.Unknown {
		s += ", of a kind the analysis cannot read"
	}
	return s
}

// Summarize renders the effects for a message: "inserts into table charges
// and sends HTTP POST".
func Summarize(list []effects.Effect) string {
	var parts []string
	seen := map[string]bool{}
	for _, e := range list {
		s := verb(e.Kind)
		if e.ReadModifyWrite != "" {
			s = e.ReadModifyWrite + ", so concurrent replicas lose updates or repeat values"
			if e.Unknown {
				// Strict profile only: the write may as well be an insert
				// keyed by the value, which conflicts instead.
				s = e.ReadModifyWrite + ", so concurrent replicas may lose updates or repeat values"
			}
		}
		if e.Resource != "" {
			s += " " + e.Resource
		}
		if e.Via != "" && !strings.Contains(s, e.Via) {
			s += " (via " + e.Via + ")"
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("%d more", len(parts)-3))
	}
	return strings.Join(parts, ", ")
}

func verb(kind string) string {
	switch kind {
	case "insert":
		return "inserts into"
	case "update":
		return "updates"
	case "delete":
		return "deletes from"
	case "increment":
		return "increments"
	case "send":
		return "sends"
	}
	return "writes"
}
