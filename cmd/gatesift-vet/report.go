package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/analysis/checker"

	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/config"
)

// inventoryOf lists the scheduled work the jobs analysis found in one root
// package, with the verdict its rules reach.
func inventoryOf(act *checker.Action, cwd string) []inventory.Entry {
	res, ok := act.Result.(*jobs.Result)
	if !ok || res == nil || len(act.Package.GoFiles) == 0 {
		return nil
	}
	strict := false
	if s, err := config.ForDir(filepath.Dir(act.Package.GoFiles[0])); err == nil {
		strict = s.Strict()
	}
	return inventory.Build(act.Package.Fset, act.Package.PkgPath, res, inventory.Options{Strict: strict, BaseDir: cwd})
}

// writeReport prints the inventory (-report=markdown|json). A package and its
// test variant share files, so entries are deduplicated by position.
func writeReport(w io.Writer, res *results, format string) error {
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
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		return lessEntry(a, b)
	})
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if entries == nil {
			entries = []inventory.Entry{}
		}
		return enc.Encode(entries)
	}
	return inventory.Markdown(w, entries)
}

func lessEntry(a, b inventory.Entry) bool {
	if a.Site.File != b.Site.File {
		return a.Site.File < b.Site.File
	}
	if a.Site.Line != b.Site.Line {
		return a.Site.Line < b.Site.Line
	}
	return a.Site.Column < b.Site.Column
}
