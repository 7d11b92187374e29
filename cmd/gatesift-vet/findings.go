package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"go/ast"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/config"
	"github.com/gatesift/gatesift-vet/signals"
)

// results is one standalone run, ready for any output format.
type results struct {
	cwd        string
	source     config.Source // the configuration the run was bound to
	root       string        // module root: SARIF URIs and fingerprints are relative to it
	findings   []*finding    // reported, sorted by position
	suppressed []*finding    // silenced by a //gatesift: directive, for SARIF
	errors     []actionError
	broken     []brokenPackage     // packages that do not load or type-check, by ID
	skipped    []skippedPackage    // packages not analyzed because an import does not load, by ID
	inventory  []variantEntry      // the jobs, locks and elections of the root packages, for -report
	programs   []inventory.Program // the binaries among the root packages, for -report
}

type actionError struct {
	pkgID, analyzer, err string
}

// finding is one diagnostic with everything the outputs need, resolved
// once: positions, rule, enclosing function and the line-independent
// fingerprint used by SARIF and baselines.
type finding struct {
	pkgID    string
	analyzer string
	rule     signals.Rule // zero for a diagnostic outside the registry
	ruleID   string
	diag     analysis.Diagnostic
	fset     *token.FileSet
	pos, end token.Position
	fn       string // enclosing function ("Type.Method", "func"), or ""
	by       *directive.Directive

	relFile     string // relative to the module root, slash-separated
	fingerprint string
}

// collect turns the engine's runs into results. Diagnostics are
// de-duplicated by position and message, because a file belongs to both a
// package and its test variant.
func collect(eng *engine, pkgs []*packages.Package, cwd string, src config.Source) *results {
	res := &results{cwd: cwd, root: cwd, source: src}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Dir != "" {
			res.root = p.Module.Dir
			break
		}
	}
	order := map[string]int{} // by name: the run's analyzers are bound copies
	for i, a := range analyzers(config.Source{}) {
		order[a.Name] = i
	}
	type rootAct struct {
		run *pkgRun
		act actRun
	}
	var roots []rootAct
	for _, p := range pkgs { // sorted by ID
		if run := eng.runs[p]; run != nil {
			for _, act := range run.acts {
				roots = append(roots, rootAct{run, act})
			}
			for _, e := range run.inventory {
				res.inventory = append(res.inventory, variantEntry{Entry: e, testVariant: strings.Contains(p.ID, " [")})
			}
		}
	}
	sort.SliceStable(roots, func(i, j int) bool {
		if roots[i].run.pkg.ID != roots[j].run.pkg.ID {
			return roots[i].run.pkg.ID < roots[j].run.pkg.ID
		}
		return order[roots[i].act.analyzer.Name] < order[roots[j].act.analyzer.Name]
	})

	res.programs = programsOf(pkgs)
	res.broken = slices.Clone(eng.broken)
	slices.SortFunc(res.broken, func(a, b brokenPackage) int { return strings.Compare(a.pkgID, b.pkgID) })
	res.skipped = slices.Clone(eng.skipped)
	slices.SortFunc(res.skipped, func(a, b skippedPackage) int { return strings.Compare(a.pkgID, b.pkgID) })
	res.errors = append(res.errors, eng.actErrs...)
	sort.SliceStable(res.errors, func(i, j int) bool {
		a, b := res.errors[i], res.errors[j]
		if a.pkgID != b.pkgID {
			return a.pkgID < b.pkgID
		}
		return a.analyzer < b.analyzer
	})

	type key struct {
		pos, end   token.Position
		analyzer   string
		message    string
		suppressed bool
	}
	seen := map[key]bool{}
	fset := eng.fset
	add := func(run *pkgRun, a *analysis.Analyzer, d analysis.Diagnostic, by *directive.Directive) {
		f := &finding{
			pkgID:    run.pkg.ID,
			analyzer: a.Name,
			diag:     d,
			fset:     fset,
			pos:      fset.Position(d.Pos),
			end:      fset.Position(d.End),
			by:       by,
		}
		if !f.end.IsValid() {
			f.end = f.pos
		}
		k := key{f.pos, f.end, f.analyzer, d.Message, by != nil}
		if seen[k] {
			return
		}
		seen[k] = true
		r, ok := signals.Lookup(d.Category)
		if !ok {
			r, ok = signals.Lookup(a.Name)
		}
		if ok {
			f.rule, f.ruleID = r, r.ID
		} else {
			f.ruleID = d.Category
			if f.ruleID == "" {
				f.ruleID = a.Name
			}
		}
		f.fn = run.fn[d.Pos]
		if by != nil {
			res.suppressed = append(res.suppressed, f)
		} else {
			res.findings = append(res.findings, f)
		}
	}
	for _, ra := range roots {
		for _, d := range ra.act.diags {
			add(ra.run, ra.act.analyzer, d, nil)
		}
		for _, s := range ra.act.suppressed {
			add(ra.run, ra.act.analyzer, s.Diagnostic, s.By)
		}
	}
	sortFindings(res.findings)
	sortFindings(res.suppressed)
	fingerprint(res)
	return res
}

func sortFindings(fs []*finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.pos.Filename != b.pos.Filename:
			return a.pos.Filename < b.pos.Filename
		case a.pos.Line != b.pos.Line:
			return a.pos.Line < b.pos.Line
		case a.pos.Column != b.pos.Column:
			return a.pos.Column < b.pos.Column
		case a.ruleID != b.ruleID:
			return a.ruleID < b.ruleID
		}
		return a.diag.Message < b.diag.Message
	})
}

// enclosingFunc names the function declaration around pos: "Name" or
// "Recv.Name"; a function literal counts as its enclosing declaration.
func enclosingFunc(files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		if pos < f.FileStart || pos > f.FileEnd {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || pos < fd.Pos() || pos > fd.End() {
				continue
			}
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				return recvTypeName(fd.Recv.List[0].Type) + "." + fd.Name.Name
			}
			return fd.Name.Name
		}
	}
	return ""
}

func recvTypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvTypeName(e.X)
	case *ast.IndexExpr:
		return recvTypeName(e.X)
	case *ast.IndexListExpr:
		return recvTypeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// relPath is filename relative to the module root, slash-separated, or the
// absolute path when the file lies outside it.
func (res *results) relPath(filename string) string {
	if rel, err := filepath.Rel(res.root, filename); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(filename)
}

var digits = regexp.MustCompile(`[0-9]+`)

// fingerprint gives every finding a fingerprint that survives edits which
// only move it: the rule, the file relative to the module root, the
// enclosing function, the message with numbers blanked (messages may cite
// lines or columns) and the flagged line's text with whitespace collapsed.
// Identical findings (the same call twice in one function) get an
// occurrence index in source order, so each one is matched once.
func fingerprint(res *results) {
	lines := newLineCache()
	count := map[string]int{}
	for _, list := range [][]*finding{res.findings, res.suppressed} {
		for _, f := range list {
			f.relFile = res.relPath(f.pos.Filename)
			h := sha256.New()
			for _, part := range []string{
				f.ruleID,
				f.relFile,
				f.fn,
				digits.ReplaceAllString(f.diag.Message, "N"),
				strings.Join(strings.Fields(lines.line(f.pos.Filename, f.pos.Line)), " "),
			} {
				io.WriteString(h, part)
				h.Write([]byte{0})
			}
			base := hex.EncodeToString(h.Sum(nil))[:32]
			n := count[base]
			count[base]++
			f.fingerprint = fmt.Sprintf("%s:%d", base, n)
		}
	}
}

// lineCache reads source files once for fingerprints and SARIF columns.
type lineCache map[string][]string

func newLineCache() lineCache { return lineCache{} }

func (c lineCache) line(filename string, n int) string {
	text, _ := c.lineOK(filename, n)
	return text
}

// lineOK returns line n (1-based) of the file, without its newline, and
// whether the file has such a line.
func (c lineCache) lineOK(filename string, n int) (string, bool) {
	lines, ok := c[filename]
	if !ok {
		data, _ := os.ReadFile(filename)
		lines = strings.Split(string(data), "\n")
		if len(data) > 0 && data[len(data)-1] == '\n' {
			lines = lines[:len(lines)-1] // no line after the final newline
		}
		c[filename] = lines
	}
	if n < 1 || n > len(lines) {
		return "", false
	}
	return strings.TrimSuffix(lines[n-1], "\r"), true
}

// progress reports the phases of a long run on stderr, only when stderr is
// a terminal: logs in CI and in editors stay clean.
type progress struct {
	w  io.Writer
	on bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{}
	}
	st, err := f.Stat()
	return &progress{w: w, on: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) printf(format string, args ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K%s: %s...", progname, fmt.Sprintf(format, args...))
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
