package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writeFCModule writes <outdir>/<module>.json and .md.
func writeFCModule(outDir string, r FCModuleResult) error {
	base := filepath.Join(outDir, copyDirName(r.Module))
	if err := writeJSON(base+".json", r); err != nil {
		return err
	}
	f, err := os.Create(base + ".md")
	if err != nil {
		return err
	}
	writeFCModuleMarkdown(f, &r)
	return f.Close()
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	return s
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func writeFCModuleMarkdown(w io.Writer, r *FCModuleResult) {
	fmt.Fprintf(w, "# First contact: %s (batch %d)\n\n", r.Module, r.Batch)
	fmt.Fprintf(w, "Patterns `%s`, tool `%s`, profile %s, started %s; prepare %.0fs, findings run %.0fs, inventory run %.0fs.\n\n",
		strings.Join(r.Patterns, " "), r.Tool, r.Profile, r.Started.Format("2006-01-02 15:04Z"), r.PrepareSeconds, r.FindingsSecs, r.ReportSecs)
	if r.Error != "" {
		fmt.Fprintf(w, "**Error:**\n\n```\n%s\n```\n\n", clip(r.Error, 4000))
	}
	if len(r.Excluded) > 0 {
		fmt.Fprintf(w, "%d packages do not load and were left out (%d analyzed):\n\n", len(r.Excluded), len(r.Analyzed))
		for _, e := range r.Excluded {
			fmt.Fprintf(w, "- %s\n", clip(e, 300))
		}
		fmt.Fprintln(w)
	}
	for _, e := range r.AnalyzerErrors {
		fmt.Fprintf(w, "- analyzer error: %s %s: %s\n", e.Package, e.Analyzer, clip(e.Error, 300))
	}
	c := r.Joined.Counts
	fmt.Fprintf(w, "Findings: %d. Inventory: %d entries (%s). Discovered sites: %d: %d reported, %d silent, %d not recognized; %d inventory entries matched no discovered site.\n\n",
		len(r.Findings), len(r.Inventory), verdictList(c.Verdicts), c.Sites, c.Reported, c.Silent, c.NotRecognized, c.ToolOnly)

	fmt.Fprintf(w, "## Findings\n\n")
	if r.FindingsFromInventory {
		fmt.Fprintf(w, "Read from the inventory (-inventory-only): one per rule of each finding entry, the entry's reason as the message.\n\n")
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "None.\n\n")
	} else {
		fmt.Fprintf(w, "| # | Rule | Position | Message | Inventory entry |\n|---|---|---|---|---|\n")
		for _, jf := range r.Joined.Findings {
			f := r.Findings[jf.Finding]
			entry := "-"
			if jf.Entry >= 0 {
				entry = fmt.Sprintf("E%d", jf.Entry+1)
			}
			fmt.Fprintf(w, "| F%d | %s | %s:%d | %s | %s |\n", jf.Finding+1, f.Category, f.File, f.Line, mdCell(clip(f.Message, 400)), entry)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "## Tool inventory\n\n")
	if len(r.Inventory) == 0 {
		fmt.Fprintf(w, "None.\n\n")
	} else {
		fmt.Fprintf(w, "| # | Kind | Site | Scheduler / API | Function | Writes | Verdict | Reason |\n|---|---|---|---|---|---|---|---|\n")
		for i, e := range r.Inventory {
			verdict := e.Verdict
			if len(e.Rules) > 0 {
				verdict += " " + strings.Join(e.Rules, ",")
			}
			fmt.Fprintf(w, "| E%d | %s | %s:%d | %s | %s | %s | %s | %s |\n", i+1, e.Kind, e.Site.File, e.Site.Line,
				mdCell(e.Scheduler+" "+e.Schedule+e.Key+" "+e.Lease), mdCell(e.Function), mdCell(clip(e.writes(), 200)), verdict, mdCell(clip(e.Reason, 300)))
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "## Discovered sites\n\n")
	if len(r.Sites) == 0 {
		fmt.Fprintf(w, "None.\n\n")
		return
	}
	fmt.Fprintf(w, "| # | Kind | Pattern | Position | Function | Status | Entry | Code |\n|---|---|---|---|---|---|---|---|\n")
	for _, js := range r.Joined.Sites {
		s := r.Sites[js.Site]
		status := js.Status
		if len(js.Rules) > 0 {
			status += " " + strings.Join(js.Rules, ",")
		} else if js.Verdict != "" && js.Status == statusSilent {
			status += " (" + js.Verdict + ")"
		}
		entry := "-"
		if js.Entry >= 0 {
			entry = fmt.Sprintf("E%d", js.Entry+1)
		}
		fmt.Fprintf(w, "| S%d | %s | %s | %s:%d | %s | %s | %s | `%s` |\n", js.Site+1, s.Kind, mdCell(s.Pattern), s.File, s.Line, mdCell(s.Function), status, entry, mdCell(strings.ReplaceAll(s.Text, "`", "'")))
	}
	fmt.Fprintln(w)
}

func verdictList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writeFCSummary rebuilds <outdir>/summary.md and summary.json from every
// module result of the batch in the folder, so modules run one at a time
// add up to the batch.
func writeFCSummary(outDir string, batch int) error {
	files, err := filepath.Glob(filepath.Join(outDir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	type row struct {
		Module        string         `json:"module"`
		Patterns      []string       `json:"patterns"`
		Error         string         `json:"error,omitempty"`
		Excluded      int            `json:"excluded_packages"`
		Findings      int            `json:"findings"`
		Inventory     int            `json:"inventory"`
		Verdicts      map[string]int `json:"verdicts"`
		Sites         int            `json:"sites"`
		Reported      int            `json:"reported"`
		Silent        int            `json:"silent"`
		NotRecognized int            `json:"not_recognized"`
		ToolOnly      int            `json:"tool_only"`
		Seconds       float64        `json:"analysis_seconds"`
		Tool          string         `json:"tool"`
	}
	var rows []row
	for _, f := range files {
		if filepath.Base(f) == "summary.json" || strings.HasSuffix(f, ".report.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r FCModuleResult
		if err := json.Unmarshal(data, &r); err != nil || r.Module == "" || r.Batch != batch {
			continue
		}
		c := r.Joined.Counts
		rows = append(rows, row{Module: r.Module, Patterns: r.Patterns, Error: firstLine(r.Error), Excluded: len(r.Excluded), Findings: len(r.Findings), Inventory: len(r.Inventory),
			Verdicts: c.Verdicts, Sites: c.Sites, Reported: c.Reported, Silent: c.Silent, NotRecognized: c.NotRecognized, ToolOnly: c.ToolOnly,
			Seconds: r.FindingsSecs + r.ReportSecs, Tool: r.Tool})
	}
	if err := writeJSON(filepath.Join(outDir, "summary.json"), rows); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(outDir, "summary.md"))
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "# First contact, batch %d\n\n", batch)
	fmt.Fprintf(f, "Tool-side counts only; TP/FP and misses are judged by hand in corpus/firstcontact.md.\n\n")
	fmt.Fprintf(f, "| Module | Patterns | Findings | Inventory (verdicts) | Sites | Reported | Silent | Not recognized | Tool-only entries | Analysis s | Packages left out | Error |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(f, "| %s | %s | %d | %d (%s) | %d | %d | %d | %d | %d | %.0f | %d | %s |\n", r.Module, strings.Join(r.Patterns, " "), r.Findings, r.Inventory,
			verdictList(r.Verdicts), r.Sites, r.Reported, r.Silent, r.NotRecognized, r.ToolOnly, r.Seconds, r.Excluded, mdCell(clip(r.Error, 200)))
	}
	return f.Close()
}
