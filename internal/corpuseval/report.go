package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one run measured; -json writes it as is.
type Report struct {
	Started    time.Time    `json:"started"`
	Finished   time.Time    `json:"finished"`
	Profile    string       `json:"profile"`
	Tool       string       `json:"tool"`
	RepoCommit string       `json:"repo_commit"`
	CaseFiles  []string     `json:"case_files"`
	Modules    []ModuleRun  `json:"modules"`
	Cases      []CaseResult `json:"cases"`
	Rules      []RuleScore  `json:"rules"`
	Totals     Totals       `json:"totals"`
	Unlabeled  []Unlabeled  `json:"unlabeled"` // findings outside every labeled range
}

// ModuleRun is the preparation and analysis of one module version.
type ModuleRun struct {
	Module         string          `json:"module"`
	Dir            string          `json:"dir"`
	Packages       []string        `json:"packages"`
	PrepareSeconds float64         `json:"prepare_seconds"`
	AnalyzeSeconds float64         `json:"analyze_seconds"`
	Findings       int             `json:"findings"`
	AnalyzerErrors []AnalyzerError `json:"analyzer_errors,omitempty"`
	Error          string          `json:"error,omitempty"`
}

func pct(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", *r*100)
}

// where prints a finding position relative to the module root when it can.
func where(f Finding) string {
	if f.File == "" {
		return f.Posn
	}
	if f.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
	}
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

func inRangeSummary(r CaseResult) string {
	if len(r.InRange) == 0 {
		return "-"
	}
	var parts []string
	for _, f := range r.InRange {
		parts = append(parts, fmt.Sprintf("%s@%d", f.Category, f.Line))
	}
	return strings.Join(parts, " ")
}

func printTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "gatesift-vet corpus evaluation: profile %s, repo %s, %d cases from %s\n\n",
		rep.Profile, rep.RepoCommit, len(rep.Cases), strings.Join(rep.CaseFiles, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tOUTCOME\tEXPECT\tIN RANGE (rule@line)")
	for _, r := range rep.Cases {
		exp := strings.Join(r.Case.Expect, ",")
		if exp == "" {
			exp = "[]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Case.ID, strings.ToUpper(string(r.Outcome)), exp, inRangeSummary(r))
	}
	tw.Flush()

	t := rep.Totals
	fmt.Fprintf(w, "\nfound %d/%d positive, silent %d/%d negative, %d false positive, %d error; recall %s, precision %s (cases)\n",
		t.Found, t.Positive, t.Silent, t.Negative, t.FalsePositives, t.Errors, pct(t.Recall), pct(t.Precision))

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLABELED\tFOUND\tFP\tUNLABELED-IN-RANGE\tRECALL\tPRECISION")
	for _, s := range rep.Rules {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", s.Rule, s.Labeled, s.Found, s.FalsePositives, s.Unlabeled, pct(s.Recall), pct(s.Precision))
	}
	tw.Flush()

	fmt.Fprintf(w, "\nfindings outside labeled ranges (triage each in corpus/triage.md): %d\n", len(rep.Unlabeled))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, u := range rep.Unlabeled {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Module, where(u.Finding), u.Category, oneLine(u.Message, 100))
	}
	tw.Flush()

	var errs []string
	for _, m := range rep.Modules {
		if m.Error != "" {
			errs = append(errs, fmt.Sprintf("%s: %s", m.Module, oneLine(m.Error, 300)))
		}
		for _, e := range m.AnalyzerErrors {
			errs = append(errs, fmt.Sprintf("%s: %s %s: %s", m.Module, e.Package, e.Analyzer, oneLine(e.Error, 300)))
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(w, "\ntool errors: %d\n", len(errs))
		for _, e := range errs {
			fmt.Fprintln(w, "  "+e)
		}
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

func writeJSON(file string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// md escapes the characters that would break a Markdown table cell.
func md(s string) string {
	s = strings.ReplaceAll(oneLine(s, 400), "|", `\|`)
	return s
}

func writeMarkdown(file string, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# gatesift-vet corpus evaluation\n\n")
	fmt.Fprintf(&b, "Run %s to %s, profile `%s`, repository commit `%s`, cases from %s.\n\n",
		rep.Started.Format(time.RFC3339), rep.Finished.Format(time.RFC3339), rep.Profile, rep.RepoCommit,
		"`"+strings.Join(rep.CaseFiles, "`, `")+"`")
	t := rep.Totals
	fmt.Fprintf(&b, "Found %d of %d positive cases (recall %s); %d of %d true negatives silent, %d false positive; precision %s (cases); %d case(s) not scored because of errors.\n\n",
		t.Found, t.Positive, pct(t.Recall), t.Silent, t.Negative, t.FalsePositives, pct(t.Precision), t.Errors)

	b.WriteString("## Cases\n\n| Case | Module | Expect | Outcome | In range |\n|---|---|---|---|---|\n")
	for _, r := range rep.Cases {
		exp := strings.Join(r.Case.Expect, ", ")
		if exp == "" {
			exp = "[]"
		}
		var in []string
		for _, f := range r.InRange {
			in = append(in, fmt.Sprintf("%s `%s`", f.Category, where(f)))
		}
		cell := strings.Join(in, "<br>")
		if r.Error != "" {
			cell = "error: " + md(oneLine(r.Error, 200))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Case.ID, r.Case.Module, exp, r.Outcome, cell)
	}

	b.WriteString("\n## Per rule (counted in cases)\n\n| Rule | Labeled | Found | False positives | Unlabeled in range | Recall | Precision |\n|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Rules {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s |\n", s.Rule, s.Labeled, s.Found, s.FalsePositives, s.Unlabeled, pct(s.Recall), pct(s.Precision))
	}

	fmt.Fprintf(&b, "\n## Findings outside labeled ranges (%d, to triage)\n\n", len(rep.Unlabeled))
	if len(rep.Unlabeled) > 0 {
		b.WriteString("| Module | Package | Position | Rule | Message |\n|---|---|---|---|---|\n")
		for _, u := range rep.Unlabeled {
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s |\n", u.Module, u.Package, where(u.Finding), u.Category, md(u.Message))
		}
	}

	b.WriteString("\n## Modules\n\n| Module | Packages | Prepare (s) | Analyze (s) | Findings | Error |\n|---|---|---|---|---|---|\n")
	for _, m := range rep.Modules {
		e := m.Error
		for _, ae := range m.AnalyzerErrors {
			e += fmt.Sprintf(" %s/%s: %s", ae.Package, ae.Analyzer, ae.Error)
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %d | %s |\n", m.Module, strings.Join(m.Packages, " "), m.PrepareSeconds, m.AnalyzeSeconds, m.Findings, md(oneLine(e, 300)))
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
