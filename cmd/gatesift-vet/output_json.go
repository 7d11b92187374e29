package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The go vet / unitchecker JSON tree: package ID -> analyzer name -> either
// a list of diagnostics or {"error": "..."}. The shape must stay exactly
// what go vet -json prints, because tools parse both the same way.
//
// A package that was not analyzed (it does not load or type-check, or an
// import of it does not) gets one more entry in that shape, under the key
// loadKey: {"error": "..."} for the tools that read go vet's tree, plus the
// errors with their positions, or the imports that caused the skip.
type (
	jsonTree map[string]map[string]any

	jsonDiagnostic struct {
		Category       string        `json:"category,omitempty"`
		Posn           string        `json:"posn"`
		End            string        `json:"end"`
		Message        string        `json:"message"`
		SuggestedFixes []jsonFix     `json:"suggested_fixes,omitempty"`
		Related        []jsonRelated `json:"related,omitempty"`
	}
	jsonRelated struct {
		Posn    string `json:"posn"`
		End     string `json:"end"`
		Message string `json:"message"`
	}
	jsonFix struct {
		Message string     `json:"message"`
		Edits   []jsonEdit `json:"edits"`
	}
	// jsonEdit offsets are zero-based byte offsets, End exclusive.
	jsonEdit struct {
		Filename string `json:"filename"`
		Start    int    `json:"start"`
		End      int    `json:"end"`
		New      string `json:"new"`
	}
	jsonError struct {
		Err string `json:"error"`
	}
	jsonLoadError struct {
		Err           string             `json:"error"`                    // everything below, as one line
		Errors        []jsonPackageError `json:"errors,omitempty"`         // the package's own errors
		BrokenImports []string           `json:"broken_imports,omitempty"` // the imports that do not load, for a skipped package
	}
	jsonPackageError struct {
		Posn    string `json:"posn,omitempty"` // file:line:col, file:line or file; absent when unknown
		Message string `json:"message"`
	}
)

// loadKey is the analyzer-name slot of the tree where a package that was
// not analyzed says why; no analyzer has that name.
const loadKey = "load"

func (t jsonTree) put(pkgID string) map[string]any {
	m := t[pkgID]
	if m == nil {
		m = map[string]any{}
		t[pkgID] = m
	}
	return m
}

func writeJSON(w io.Writer, res *results) error {
	tree := jsonTree{}
	for _, f := range res.findings {
		d := jsonDiagnostic{
			Category: f.diag.Category,
			Posn:     f.pos.String(),
			End:      f.end.String(),
			Message:  f.diag.Message,
		}
		for _, r := range f.diag.Related {
			d.Related = append(d.Related, jsonRelated{
				Posn:    f.fset.Position(r.Pos).String(),
				End:     f.fset.Position(cmp.Or(r.End, r.Pos)).String(),
				Message: r.Message,
			})
		}
		for _, fix := range f.diag.SuggestedFixes {
			jf := jsonFix{Message: fix.Message, Edits: []jsonEdit{}}
			for _, e := range fix.TextEdits {
				start := f.fset.Position(e.Pos)
				jf.Edits = append(jf.Edits, jsonEdit{
					Filename: start.Filename,
					Start:    start.Offset,
					End:      f.fset.Position(cmp.Or(e.End, e.Pos)).Offset,
					New:      string(e.NewText),
				})
			}
			d.SuggestedFixes = append(d.SuggestedFixes, jf)
		}
		m := tree.put(f.pkgID)
		list, _ := m[f.analyzer].([]jsonDiagnostic)
		m[f.analyzer] = append(list, d)
	}
	for _, e := range res.errors {
		tree.put(e.pkgID)[e.analyzer] = jsonError{e.err}
	}
	for _, b := range res.broken {
		le := jsonLoadError{}
		var msgs []string
		for _, e := range b.errs {
			pe := jsonPackageError{Message: e.msg}
			if e.pos.Filename != "" {
				pe.Posn = e.pos.String()
			}
			le.Errors = append(le.Errors, pe)
			msgs = append(msgs, e.String())
		}
		le.Err = "package does not load; it and the packages importing it are not analyzed: " + strings.Join(msgs, "; ")
		tree.put(b.pkgID)[loadKey] = le
	}
	for _, s := range res.skipped {
		tree.put(s.pkgID)[loadKey] = jsonLoadError{
			Err:           "not analyzed because an import does not load: " + strings.Join(s.imports, ", "),
			BrokenImports: s.imports,
		}
	}
	return writeIndentedJSON(w, tree)
}

func writeIndentedJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return fmt.Errorf("encoding JSON: %v", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
