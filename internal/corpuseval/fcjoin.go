package main

import (
	"regexp"
	"strings"
)

// Joined relates a module's discovered sites, the tool's inventory and its
// findings, so that every site gets one status:
//
//   - reported: the tool's inventory entry for it says finding (its rules),
//     or a finding lands on it;
//   - silent: the tool recognized it (an inventory entry) and did not report
//     it; the entry's verdict and reason say why;
//   - not recognized: neither an inventory entry nor a finding.
//
// Inventory entries no discovered site matched are listed too (tool-only),
// and each finding names the inventory entry it belongs to, if any.
type Joined struct {
	Sites    []JoinedSite    `json:"sites"`
	ToolOnly []int           `json:"tool_only"` // indexes into the inventory
	Findings []JoinedFinding `json:"findings"`
	Counts   JoinCounts      `json:"counts"`
}

// JoinedSite is a discovered site with the tool's verdict on it.
type JoinedSite struct {
	Site    int      `json:"site"` // index into the sites
	Status  string   `json:"status"`
	Entry   int      `json:"entry"` // index into the inventory, -1 if none
	Verdict string   `json:"verdict,omitempty"`
	Rules   []string `json:"rules,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// JoinedFinding is a finding with the inventory entry it is about.
type JoinedFinding struct {
	Finding int `json:"finding"` // index into the findings
	Entry   int `json:"entry"`   // index into the inventory, -1 if none
}

// JoinCounts summarizes a join.
type JoinCounts struct {
	Sites         int            `json:"sites"`
	Reported      int            `json:"reported"`
	Silent        int            `json:"silent"`
	NotRecognized int            `json:"not_recognized"`
	ToolOnly      int            `json:"tool_only"`
	Findings      int            `json:"findings"`
	Verdicts      map[string]int `json:"verdicts"` // inventory entries per verdict
}

const (
	statusReported      = "reported"
	statusSilent        = "silent"
	statusNotRecognized = "not recognized"
	// joinWindow is how far (in lines, same file and function) a discovered
	// site may be from the tool's position for the same job: the tool puts a
	// sleep loop's job at the loop or at the go statement, discovery at the
	// loop; a re-armed timer's at its first arm.
	joinWindow = 40
)

// funcSuffixRe strips what the tool (go/ssa naming) adds to an enclosing
// function's name for closures: run$1, run.func1.
var funcSuffixRe = regexp.MustCompile(`(\$[0-9]+|\.func[0-9]+)+$`)

// baseFunc reduces "(*Server).run$1", "Server.run", "run.func2" to "run",
// the common part of the tool's and the discovery's function names.
func baseFunc(s string) string {
	s = funcSuffixRe.ReplaceAllString(s, "")
	if i := strings.LastIndexAny(s, ".)"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// kindsCompatible: a discovered lock may be the tool's lock or election
// (a lease), a discovered election the tool's election or lock.
func kindsCompatible(site, entry string) bool {
	if site == entry {
		return true
	}
	return site != "job" && entry != "job"
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// join computes the statuses. A site takes the inventory entry on its line,
// else the nearest compatible entry in the same file and function within
// joinWindow lines. Several sites may share an entry (a timer and its
// re-arm are one job to the tool).
func join(findings []Finding, inv []InvEntry, sites []Site) Joined {
	j := Joined{Counts: JoinCounts{Sites: len(sites), Findings: len(findings), Verdicts: map[string]int{}}}
	for _, e := range inv {
		j.Counts.Verdicts[e.Verdict]++
	}
	byFile := map[string][]int{}
	for i, e := range inv {
		byFile[e.Site.File] = append(byFile[e.Site.File], i)
	}
	used := make([]bool, len(inv))
	for si, s := range sites {
		best, bestDist := -1, joinWindow+1
		for _, ei := range byFile[s.File] {
			e := inv[ei]
			d := abs(e.Site.Line - s.Line)
			if d == 0 && kindsCompatible(s.Kind, e.Kind) {
				best, bestDist = ei, -1
				break
			}
			if d < bestDist && kindsCompatible(s.Kind, e.Kind) && s.Function != "" && baseFunc(e.Function) == baseFunc(s.Function) {
				best, bestDist = ei, d
			}
		}
		js := JoinedSite{Site: si, Entry: best}
		switch {
		case best >= 0:
			used[best] = true
			e := inv[best]
			js.Verdict, js.Rules, js.Reason = e.Verdict, e.Rules, e.Reason
			if e.Verdict == "finding" {
				js.Status = statusReported
			} else {
				js.Status = statusSilent
			}
		default:
			if rules := findingsOnLine(findings, s.File, s.Line); len(rules) > 0 {
				js.Status, js.Rules = statusReported, rules
			} else {
				js.Status = statusNotRecognized
			}
		}
		switch js.Status {
		case statusReported:
			j.Counts.Reported++
		case statusSilent:
			j.Counts.Silent++
		default:
			j.Counts.NotRecognized++
		}
		j.Sites = append(j.Sites, js)
	}
	for i := range inv {
		if !used[i] {
			j.ToolOnly = append(j.ToolOnly, i)
		}
	}
	j.Counts.ToolOnly = len(j.ToolOnly)
	for fi, f := range findings {
		j.Findings = append(j.Findings, JoinedFinding{Finding: fi, Entry: entryOfFinding(f, inv)})
	}
	return j
}

// findingsOnLine returns the rules of the findings at file:line.
func findingsOnLine(findings []Finding, file string, line int) []string {
	var rules []string
	for _, f := range findings {
		if f.File == file && f.Line == line && !contains(rules, f.Category) {
			rules = append(rules, f.Category)
		}
	}
	return rules
}

// entryOfFinding is the inventory entry at the finding's position, else the
// nearest entry in the same file (within joinWindow lines) that lists the
// finding's rule.
func entryOfFinding(f Finding, inv []InvEntry) int {
	best, bestDist := -1, joinWindow+1
	for i, e := range inv {
		if e.Site.File != f.File || f.File == "" {
			continue
		}
		d := abs(e.Site.Line - f.Line)
		if d == 0 {
			return i
		}
		if d < bestDist && contains(e.Rules, f.Category) {
			best, bestDist = i, d
		}
	}
	return best
}
