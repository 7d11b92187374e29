// Package rule turns a rule's check function into an analysis.Analyzer with
// the behaviour every gatesift-vet rule shares, whatever the driver (the
// gatesift-vet binary, go vet -vettool, golangci-lint, nogo):
//
//   - Analyzer.Name, URL and every diagnostic's Category come from the
//     registry in package signals;
//   - the package's .gatesift.yaml decides whether the rule reports, its
//     profile and its excludes; a rule with facts runs even when disabled,
//     reporting nothing, because its facts are what importers see of the
//     package, and one package's configuration must not change another's
//     findings;
//   - //gatesift:ignore and file-ignore directives suppress findings, which
//     are kept in the analyzer's result for SARIF;
//   - _test.go and generated files are skipped unless the config asks;
//   - a panic inside the rule becomes an "internal error" diagnostic for the
//     package, never a crash of the run.
package rule

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/config"
	"github.com/gatesift/gatesift-vet/signals"
)

// Spec describes one rule.
type Spec struct {
	ID  string // the registry ID, e.g. "LE1001"
	Doc string // the analyzer doc; defaults to the registry title and help
	// Run checks one package and reports through the Pass. A rule with
	// FactTypes is run on a package that disables it too, to export its
	// facts; Pass.FactsOnly then says so, and Run should stop once the
	// facts are exported.
	Run       func(*Pass) error
	Requires  []*analysis.Analyzer
	FactTypes []analysis.Fact
}

// Outcome is every rule analyzer's result: what it found but did not report
// because a directive suppressed it (SARIF lists those with their
// justification), and whether it ran at all.
type Outcome struct {
	Ran        bool
	Suppressed []Suppressed
}

// Suppressed is a finding silenced by a directive.
type Suppressed struct {
	Diagnostic analysis.Diagnostic
	By         *directive.Directive
}

// New builds the analyzer of a rule.
func New(spec Spec) *analysis.Analyzer {
	r := signals.MustLookup(spec.ID)
	doc := spec.Doc
	if doc == "" {
		doc = r.Title + "\n\n" + r.Help
	}
	a := &analysis.Analyzer{
		Name:       r.Name,
		Doc:        doc,
		URL:        r.URL(), // the rule's section; a driver resolving "#"+Category lands on the same anchor
		Requires:   append([]*analysis.Analyzer{directive.Analyzer, settings.Analyzer}, spec.Requires...),
		FactTypes:  spec.FactTypes,
		ResultType: reflect.TypeOf((*Outcome)(nil)),
	}
	a.Run = func(pass *analysis.Pass) (any, error) { return run(pass, r, spec) }
	return a
}

func run(pass *analysis.Pass, r signals.Rule, spec Spec) (result any, err error) {
	out := new(Outcome)
	conf, err := settings.Of(pass)
	if err != nil {
		return nil, err // a broken config is a tool error (exit 1), not a finding
	}
	enabled := conf.Enabled(r.ID)
	if !enabled && len(spec.FactTypes) == 0 {
		return out, nil
	}
	p := &Pass{
		Pass:       pass,
		Rule:       r,
		Settings:   conf,
		KB:         conf.Knowledge,
		Directives: pass.ResultOf[directive.Analyzer].(*directive.Set),
		out:        out,
		factsOnly:  !enabled,
	}
	defer func() {
		if x := recover(); x != nil {
			out.Ran = false
			pos := token.NoPos
			if len(pass.Files) > 0 {
				pos = pass.Files[0].Name.Pos()
			}
			stack := string(debug.Stack())
			pass.Report(analysis.Diagnostic{
				Pos:      pos,
				Category: r.ID,
				Message: fmt.Sprintf("internal error: rule %s (%s) panicked on package %s: %v; "+
					"its findings for this package are lost; please report this with the stack: %s",
					r.ID, r.Name, pass.Pkg.Path(), x, firstFrames(stack)),
			})
			result, err = out, nil
		}
	}()
	// A shared analysis this rule depends on may have failed; say so once
	// per rule and package instead of reporting on partial data.
	for _, req := range spec.Requires {
		if f, ok := pass.ResultOf[req].(interface{ Failure() string }); ok && f.Failure() != "" {
			panic(f.Failure())
		}
	}
	if err := spec.Run(p); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Name, err)
	}
	out.Ran = enabled
	return out, nil
}

// firstFrames keeps the panicking frames of a stack, short enough for one
// diagnostic line.
func firstFrames(stack string) string {
	lines := strings.Split(stack, "\n")
	var keep []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "/") && !strings.Contains(l, "/runtime/") && !strings.Contains(l, "analyzers/rule/") {
			keep = append(keep, filepath.Base(strings.Fields(l)[0]))
		}
		if len(keep) == 3 {
			break
		}
	}
	return strings.Join(keep, " <- ")
}

// Pass is what a rule's check function sees: the analysis pass plus the
// rule's settings, the knowledge base and the package's directives.
type Pass struct {
	*analysis.Pass
	Rule       signals.Rule
	Settings   *config.Settings
	KB         *signals.Knowledge
	Directives *directive.Set
	out        *Outcome
	factsOnly  bool
}

// FactsOnly reports whether the configuration disables the rule on this
// package: Run is called only for the facts it exports, and Report drops
// every finding.
func (p *Pass) FactsOnly() bool { return p.factsOnly }

// Files returns the files the rule should look at: without _test.go and
// generated files unless the config opts in.
func (p *Pass) Files() []*ast.File {
	return ReadFiles(p.Fset, p.Pass.Files, p.Pkg.Path(), p.Settings.Config)
}

// ReadFiles returns the files of package pkgPath the rules read under
// configuration c (those Skips leaves in), for shared analyzers that
// compute for the rules before a rule.Pass exists.
func ReadFiles(fset *token.FileSet, files []*ast.File, pkgPath string, c *config.Config) []*ast.File {
	var out []*ast.File
	for _, f := range files {
		if !Skips(fset, f, pkgPath, c) {
			out = append(out, f)
		}
	}
	return out
}

func (p *Pass) skip(f *ast.File) bool {
	return Skips(p.Fset, f, p.Pkg.Path(), p.Settings.Config)
}

// Skips reports whether the rules leave file f of package pkgPath alone
// under configuration c: a _test.go file or a test program's (testProgram)
// unless c asks for tests, a generated file unless c asks for those. The
// inventory uses it too, so that its verdicts follow the rules'.
func Skips(fset *token.FileSet, f *ast.File, pkgPath string, c *config.Config) bool {
	name := fset.File(f.Pos()).Name()
	if (strings.HasSuffix(name, "_test.go") || testProgram(pkgPath)) && !c.Tests {
		return true
	}
	return ast.IsGenerated(f) && !c.Generated
}

// testProgram reports whether a package path lies in a tree kept for tests:
// an element named test, tests, e2e or testdata, or starting with "test"
// (testexporter, testapps). Such programs (load generators, end-to-end test
// apps, correctness exporters) are run by a test, not replicated as a
// service, so their loops are no singleton work; the tests setting opts in
// as for _test.go files.
func testProgram(pkgPath string) bool {
	for _, elem := range strings.Split(pkgPath, "/") {
		switch {
		case elem == "e2e", elem == "testdata", strings.HasPrefix(elem, "test"):
			return true
		}
	}
	return false
}

// Report reports a finding of the rule unless a directive suppresses it or
// the config excludes its file. Category is always the rule ID.
func (p *Pass) Report(d analysis.Diagnostic) {
	if p.factsOnly {
		return
	}
	d.Category = p.Rule.ID
	file := p.Fset.File(d.Pos)
	if file == nil {
		return
	}
	if p.Settings.Excluded(file.Name()) {
		return
	}
	for _, f := range p.Pass.Files {
		if f.FileStart <= d.Pos && d.Pos <= f.FileEnd && p.skip(f) {
			return
		}
	}
	if by := p.Directives.Suppressor(p.Fset, p.Rule.ID, d.Pos); by != nil {
		p.out.Suppressed = append(p.out.Suppressed, Suppressed{Diagnostic: d, By: by})
		return
	}
	p.Pass.Report(d)
}

// Reportf reports a finding spanning node, with related information.
func (p *Pass) Reportf(node ast.Node, related []analysis.RelatedInformation, format string, args ...any) {
	p.Report(analysis.Diagnostic{
		Pos:     node.Pos(),
		End:     node.End(),
		Message: fmt.Sprintf(format, args...),
		Related: related,
	})
}

// Related builds a related-information entry spanning node.
func Related(node ast.Node, format string, args ...any) analysis.RelatedInformation {
	return analysis.RelatedInformation{Pos: node.Pos(), End: node.End(), Message: fmt.Sprintf(format, args...)}
}

// ImportsKnown reports whether the package imports any package the
// knowledge base names, for a rule's fast exit.
func (p *Pass) ImportsKnown() bool {
	for _, imp := range p.Pkg.Imports() {
		if p.KB.Knows(imp.Path()) {
			return true
		}
	}
	return false
}
