package main

import (
	"encoding/json"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/inventory"
)

// reportFormats are the values of -report.
var reportFormats = []string{"markdown", "json", "html"}

// programsOf returns each main package among pkgs (test mains and test
// variants left out) with every package it imports transitively. A binary
// is named after its directory, or after the module path's last element
// when it is the module root.
func programsOf(pkgs []*packages.Package) []inventory.Program {
	var out []inventory.Program
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.Name != "main" || strings.Contains(p.ID, " [") || strings.HasSuffix(p.PkgPath, ".test") || seen[p.PkgPath] {
			continue
		}
		seen[p.PkgPath] = true
		prog := inventory.Program{Package: p.PkgPath, Reaches: map[string]bool{}, Name: path.Base(p.PkgPath)}
		if len(p.GoFiles) > 0 {
			dir := filepath.Dir(p.GoFiles[0])
			prog.Name = filepath.Base(dir)
			if p.Module != nil && p.Module.Dir == dir {
				prog.Name = path.Base(p.Module.Path)
			}
		}
		packages.Visit([]*packages.Package{p}, nil, func(q *packages.Package) { prog.Reaches[q.PkgPath] = true })
		out = append(out, prog)
	}
	return out
}

// buildReport groups the run's inventory by binary. A package and its test
// variant share files, so entries are deduplicated first.
func buildReport(res *results) *inventory.Report {
	seen := map[string]bool{}
	var entries []inventory.Entry
	for _, e := range res.inventory {
		b, _ := json.Marshal(e)
		if seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		entries = append(entries, e)
	}
	r := inventory.Group(entries, res.programs, progname, version())
	for _, b := range res.broken {
		na := inventory.NotAnalyzed{Package: b.pkgID}
		for _, e := range b.errs {
			na.Errors = append(na.Errors, shortenPaths(e.String(), res.cwd))
		}
		r.NotAnalyzed = append(r.NotAnalyzed, na)
	}
	for _, s := range res.skipped {
		r.NotAnalyzed = append(r.NotAnalyzed, inventory.NotAnalyzed{Package: s.pkgID, BrokenImports: s.imports})
	}
	slices.SortFunc(r.NotAnalyzed, func(a, b inventory.NotAnalyzed) int { return strings.Compare(a.Package, b.Package) })
	return r
}

// writeReport prints the inventory (-report=markdown|json|html).
func writeReport(w io.Writer, res *results, format string, links sourceLinks) error {
	r := buildReport(res)
	switch format {
	case "json":
		return writeIndentedJSON(w, r)
	case "html":
		return writeHTMLReport(w, r, links)
	}
	return r.Markdown(w)
}
