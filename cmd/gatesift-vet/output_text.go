package main

import (
	"fmt"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gatesift/gatesift-vet/docs/patterns"
	"github.com/gatesift/gatesift-vet/signals"
)

// writeText prints one line per finding, as go vet does, with the rule ID
// appended so a reader can -explain it or write a directive for it:
//
//	file.go:12:2: message (LE1001)
//	file.go:15:3: 	related message
//
// Related information follows its finding on tab-indented lines, the way
// go vet prints it, so editor problem matchers can link every position.
//
// With -c N (N >= 0), each position is followed by its lines plus N lines
// of context, numbered, as go vet -c prints them.
func writeText(w io.Writer, res *results, context int) {
	lines := newLineCache()
	excerpt := func(start, end token.Position) {
		if context < 0 {
			return
		}
		if end.Filename != start.Filename || end.Line < start.Line {
			end = start
		}
		for i := start.Line - context; i <= end.Line+context; i++ {
			if text, ok := lines.lineOK(start.Filename, i); ok {
				fmt.Fprintf(w, "%d\t%s\n", i, text)
			}
		}
	}
	for _, f := range res.findings {
		fmt.Fprintf(w, "%s: %s (%s)\n", res.shortPos(f.pos.Filename, f.pos.Line, f.pos.Column), f.diag.Message, f.ruleID)
		excerpt(f.pos, f.end)
		for _, r := range f.diag.Related {
			p := f.fset.Position(r.Pos)
			fmt.Fprintf(w, "%s: \t%s\n", res.shortPos(p.Filename, p.Line, p.Column), r.Message)
			excerpt(p, f.fset.Position(r.End))
		}
	}
}

// shortPos formats a position with the file relative to the working
// directory when that is shorter, as the go command does.
func (res *results) shortPos(filename string, line, col int) string {
	if rel, err := filepath.Rel(res.cwd, filename); err == nil && len(rel) < len(filename) {
		filename = rel
	}
	if col > 0 {
		return fmt.Sprintf("%s:%d:%d", filename, line, col)
	}
	return fmt.Sprintf("%s:%d", filename, line)
}

func writeRuleTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tDEFAULT\tPRECISION\tTITLE")
	for _, r := range signals.Rules {
		def := "off"
		if r.Default {
			def = "on"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, def, r.Precision, r.Title)
	}
	tw.Flush()
}

// explain prints a rule's section of the pattern documentation, the text
// Analyzer.URL links to.
func explain(stdout, stderr io.Writer, id string) int {
	r, ok := signals.Lookup(strings.TrimSpace(id))
	if !ok {
		return fatalf(stderr, "-explain %s: no such rule (see %s -list)", id, progname)
	}
	text, ok := patterns.Section(r.ID)
	if !ok {
		return fatalf(stderr, "-explain %s: the documentation has no section for %s; see %s", id, r.ID, r.URL())
	}
	fmt.Fprint(stdout, markdownToText(text))
	fmt.Fprintf(stdout, "\nOnline: %s\n", r.URL())
	return exitOK
}
