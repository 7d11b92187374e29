package inventory

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Schema is the version of the JSON report's shape; it changes only when a
// field is removed or changes meaning.
const Schema = 1

// Report is the inventory of a run, grouped by binary: the JSON document of
// -report=json, and what the Markdown and HTML reports show.
type Report struct {
	Schema  int    `json:"schema"`
	Tool    string `json:"tool"`
	Version string `json:"version"` // the tool's version
	// Summary counts the distinct entries per verdict; an entry reached by
	// two binaries counts once.
	Summary  Summary  `json:"summary"`
	Binaries []Binary `json:"binaries"`
	// Library lists the entries no analyzed binary imports.
	Library []Entry `json:"library"`
	// NotAnalyzed lists the packages the run could not analyze, whose
	// entries are therefore missing: a report with them is incomplete.
	NotAnalyzed []NotAnalyzed `json:"not_analyzed,omitempty"`
}

// NotAnalyzed is a package that does not load or type-check (Errors), or
// that loads but imports one that does not (BrokenImports).
type NotAnalyzed struct {
	Package       string   `json:"package"`                  // the package ID, as go list names it
	Errors        []string `json:"errors,omitempty"`         // "file:line:col: message", file relative to the working directory when below it
	BrokenImports []string `json:"broken_imports,omitempty"` // the IDs of the imports that were not analyzed
}

// Summary counts entries per verdict.
type Summary struct {
	Finding     int `json:"finding"`
	PerReplica  int `json:"per-replica"`
	Coordinated int `json:"coordinated"`
}

// Count returns the count of verdict v.
func (s Summary) Count(v Verdict) int {
	switch v {
	case Finding:
		return s.Finding
	case PerReplica:
		return s.PerReplica
	}
	return s.Coordinated
}

// Binary is one main package and the entries of every package it imports,
// itself included.
type Binary struct {
	Name    string  `json:"name"`    // the directory's base name
	Package string  `json:"package"` // the main package's import path
	Entries []Entry `json:"entries"`
}

// Program is a main package and the import paths it reaches, itself
// included, for Group.
type Program struct {
	Name    string
	Package string
	Reaches map[string]bool
}

// Group builds the report: each entry under every program that reaches its
// package, the rest under Library; programs sorted by name then package,
// entries by position.
func Group(entries []Entry, programs []Program, tool, version string) *Report {
	r := &Report{Schema: Schema, Tool: tool, Version: version, Binaries: []Binary{}, Library: []Entry{}}
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, compareSites)
	programs = slices.Clone(programs)
	slices.SortFunc(programs, func(a, b Program) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Package, b.Package)) })
	reached := make([]bool, len(entries))
	for _, p := range programs {
		b := Binary{Name: p.Name, Package: p.Package, Entries: []Entry{}}
		for i, e := range entries {
			if p.Reaches[e.Package] {
				b.Entries = append(b.Entries, e)
				reached[i] = true
			}
		}
		r.Binaries = append(r.Binaries, b)
	}
	for i, e := range entries {
		if !reached[i] {
			r.Library = append(r.Library, e)
		}
		switch e.Verdict {
		case Finding:
			r.Summary.Finding++
		case PerReplica:
			r.Summary.PerReplica++
		case Coordinated:
			r.Summary.Coordinated++
		}
	}
	return r
}

// Why says in one line why the package was not analyzed.
func (na NotAnalyzed) Why() string {
	if len(na.Errors) > 0 {
		return strings.Join(na.Errors, "; ")
	}
	return "an import does not load: " + strings.Join(na.BrokenImports, ", ")
}

// Markdown writes the report: a summary line, then one section per binary
// and one for the library code no binary imports, each a table.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Inventory of jobs, locks and leader elections\n\n")
	fmt.Fprintf(&b, "%s %s: %d finding(s), %d per-replica, %d coordinated.\n", r.Tool, r.Version,
		r.Summary.Finding, r.Summary.PerReplica, r.Summary.Coordinated)
	if len(r.NotAnalyzed) > 0 {
		// First: what follows is incomplete.
		fmt.Fprintf(&b, "\n## Not analyzed\n\n%d package(s) were not analyzed; their jobs, locks and elections are missing below.\n\n", len(r.NotAnalyzed))
		for _, na := range r.NotAnalyzed {
			fmt.Fprintf(&b, "- `%s`: %s\n", na.Package, na.Why())
		}
	}
	section := func(title string, entries []Entry) error {
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if len(entries) == 0 {
			b.WriteString("Nothing found.\n")
			return nil
		}
		return Markdown(&b, entries)
	}
	for _, bin := range r.Binaries {
		if err := section(fmt.Sprintf("Binary `%s` (`%s`)", bin.Name, bin.Package), bin.Entries); err != nil {
			return err
		}
	}
	if len(r.Library) > 0 || len(r.Binaries) == 0 {
		if err := section("Library (reached by no analyzed binary)", r.Library); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
