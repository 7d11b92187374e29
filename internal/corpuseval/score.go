package main

import (
	"sort"
	"strings"
)

// Outcome is the verdict on one case.
type Outcome string

const (
	Found         Outcome = "found"          // expect non-empty, an expected ID reported in range
	Missed        Outcome = "missed"         // expect non-empty, none of the expected IDs in range
	Silent        Outcome = "silent"         // expect [], nothing in range
	FalsePositive Outcome = "false positive" // expect [], something in range
	Errored       Outcome = "error"          // the module could not be prepared or analyzed
)

// CaseResult is the outcome of one case and the evidence for it.
type CaseResult struct {
	Case    Case      `json:"case"`
	Outcome Outcome   `json:"outcome"`
	InRange []Finding `json:"in_range"` // every finding inside file+lines, whatever its rule
	Error   string    `json:"error,omitempty"`
}

// inRange reports whether f lands inside the case's file (or, when file names
// a folder, any file below it) and its inclusive line range.
func inRange(c Case, f Finding) bool {
	if f.File == "" || f.Line == 0 {
		return false
	}
	if f.File != c.File && !strings.HasPrefix(f.File, c.File+"/") {
		return false
	}
	return f.Line >= c.Lines[0] && f.Line <= c.Lines[1]
}

// scoreCase judges one case from the findings of its module copy. A non-empty
// runErr means the analysis did not complete, so no verdict is possible.
func scoreCase(c Case, findings []Finding, runErr string) CaseResult {
	r := CaseResult{Case: c, InRange: []Finding{}}
	for _, f := range findings {
		if inRange(c, f) {
			r.InRange = append(r.InRange, f)
		}
	}
	switch {
	case runErr != "":
		r.Outcome, r.Error = Errored, runErr
	case c.Positive():
		r.Outcome = Missed
		for _, f := range r.InRange {
			if contains(c.Expect, f.Category) {
				r.Outcome = Found
				break
			}
		}
	case len(r.InRange) > 0:
		r.Outcome = FalsePositive
	default:
		r.Outcome = Silent
	}
	return r
}

// RuleScore is precision and recall of one rule, counted in cases, not in
// findings: a rule that reports three times inside one labeled range counts once.
type RuleScore struct {
	Rule string `json:"rule"`
	// Labeled: positive cases whose expect lists the rule.
	Labeled int `json:"labeled"`
	// Found: of those, cases where the rule reported inside the range.
	Found int `json:"found"`
	// FalsePositives: true-negative cases where the rule reported inside the range.
	FalsePositives int `json:"false_positives"`
	// Unlabeled: positive cases that do not list the rule but where it reported
	// inside the range. Neither right nor wrong by the labels; triaged by hand.
	Unlabeled int `json:"unlabeled"`
	// Recall = Found/Labeled; nil when Labeled is 0.
	Recall *float64 `json:"recall"`
	// Precision = Found/(Found+FalsePositives); nil when the rule never
	// reported inside a scored range.
	Precision *float64 `json:"precision"`
}

// Totals summarizes a run over all cases. Errored cases are excluded from the
// ratios and counted separately.
type Totals struct {
	Cases          int      `json:"cases"`
	Positive       int      `json:"positive"`
	Found          int      `json:"found"`
	Missed         int      `json:"missed"`
	Negative       int      `json:"negative"`
	Silent         int      `json:"silent"`
	FalsePositives int      `json:"false_positives"`
	Errors         int      `json:"errors"`
	Recall         *float64 `json:"recall"`    // found / (found+missed)
	Precision      *float64 `json:"precision"` // found / (found+false positives)
}

func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	r := float64(num) / float64(den)
	return &r
}

func scoreRules(results []CaseResult) []RuleScore {
	by := map[string]*RuleScore{}
	get := func(id string) *RuleScore {
		if by[id] == nil {
			by[id] = &RuleScore{Rule: id}
		}
		return by[id]
	}
	for _, r := range results {
		if r.Outcome == Errored {
			continue
		}
		fired := map[string]bool{}
		for _, f := range r.InRange {
			if f.Category != "" {
				fired[f.Category] = true
			}
		}
		for _, id := range r.Case.Expect {
			s := get(id)
			s.Labeled++
			if fired[id] {
				s.Found++
			}
		}
		for id := range fired {
			switch {
			case !r.Case.Positive():
				get(id).FalsePositives++
			case !contains(r.Case.Expect, id):
				get(id).Unlabeled++
			}
		}
	}
	var out []RuleScore
	for _, s := range by {
		s.Recall = ratio(s.Found, s.Labeled)
		s.Precision = ratio(s.Found, s.Found+s.FalsePositives)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

func totals(results []CaseResult) Totals {
	var t Totals
	for _, r := range results {
		t.Cases++
		switch r.Outcome {
		case Found:
			t.Positive++
			t.Found++
		case Missed:
			t.Positive++
			t.Missed++
		case Silent:
			t.Negative++
			t.Silent++
		case FalsePositive:
			t.Negative++
			t.FalsePositives++
		case Errored:
			t.Errors++
		}
	}
	t.Recall = ratio(t.Found, t.Found+t.Missed)
	t.Precision = ratio(t.Found, t.Found+t.FalsePositives)
	return t
}

// Unlabeled is a finding outside every labeled range of its module version:
// each one must be triaged by hand (corpus/triage.md).
type Unlabeled struct {
	Module string `json:"module"`
	Finding
}

// outsideRanges returns the findings of module mod that land in no range of
// any case of that module version (all loaded cases, not only those selected
// with -only, so a labeled range is never mistaken for an unlabeled one).
func outsideRanges(mod string, findings []Finding, all []Case) []Unlabeled {
	var out []Unlabeled
	for _, f := range findings {
		labeled := false
		for _, c := range all {
			if c.Module == mod && inRange(c, f) {
				labeled = true
				break
			}
		}
		if !labeled {
			out = append(out, Unlabeled{Module: mod, Finding: f})
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
