package main

import (
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

// variantEntry is an inventory entry and whether a test variant of its
// package ("p [p.test]") produced it.
type variantEntry struct {
	inventory.Entry
	testVariant bool
}

// variantSite identifies an entry's site across package variants.
type variantSite struct {
	kind      inventory.Kind
	pkg       string
	site      inventory.Position
	scheduler string
}

// mergeVariants keeps one entry per site. A package and its test variant
// share files, so each reports the same sites, possibly with different
// verdicts (the test variant's files can add a caller, a directive or a
// coordinator). The production build's entry is the one kept; when the test
// build's verdict differs, its reason says so.
func mergeVariants(list []variantEntry) []inventory.Entry {
	at := map[variantSite]int{}
	var out []inventory.Entry
	var fromTest []bool
	var other [][]inventory.Entry // the test builds' differing entries, per kept entry
	for _, v := range list {
		k := variantSite{v.Kind, v.Package, v.Site, v.Scheduler}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out, fromTest, other = append(out, v.Entry), append(fromTest, v.testVariant), append(other, nil)
			continue
		}
		if fromTest[i] && !v.testVariant {
			other[i] = append(other[i], out[i])
			out[i], fromTest[i] = v.Entry, false
		} else if v.testVariant {
			other[i] = append(other[i], v.Entry)
		}
	}
	for i := range out {
		if fromTest[i] {
			continue // no production build reached the site: nothing to compare with
		}
		seen := map[string]bool{}
		for _, t := range other[i] {
			if t.Verdict == out[i].Verdict || seen[string(t.Verdict)+t.Reason] {
				continue
			}
			seen[string(t.Verdict)+t.Reason] = true
			out[i].Reason += " (in the test build: " + string(t.Verdict) + ", " + t.Reason + ")"
		}
	}
	return out
}

// buildReport groups the run's inventory by binary, one entry per site
// (mergeVariants).
func buildReport(res *results) *inventory.Report {
	entries := mergeVariants(res.inventory)
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
