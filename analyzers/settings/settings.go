// Package settings gives every gatesift-vet analyzer the configuration of
// the package it analyzes, from a config.Source the driver chooses, without
// package-level state: Analyzer resolves through the zero Source
// (.gatesift.yaml discovery, no overrides), and Bind copies a set of
// analyzers so that the copies resolve through another Source. The
// gatesift-vet binary binds its command line this way, and each
// golangci-lint plugin instance its own settings, so two configurations in
// one process do not meet.
package settings

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/config"
)

// Analyzer resolves the package's settings through config.Source{}; its
// result is read with Of.
var Analyzer = New(config.Source{})

// New returns a settings analyzer resolving through src.
func New(src config.Source) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:       "gatesiftsettings",
		Doc:        "resolve the package's gatesift-vet configuration (.gatesift.yaml and the driver's overrides)",
		Run:        func(pass *analysis.Pass) (any, error) { return &Result{src: src, dir: dirOf(pass)}, nil },
		ResultType: reflect.TypeOf((*Result)(nil)),
	}
}

// Result is the package's settings, resolved on first use: an analyzer
// that exits early (on the standard library, say) reads no file.
type Result struct {
	src  config.Source
	dir  string
	once sync.Once
	s    *config.Settings
	err  error
}

// Of returns the settings of the package pass analyzes. The analyzer of
// pass must require Analyzer. A malformed configuration is an error for
// the analyzer to return: a tool error, not a finding.
func Of(pass *analysis.Pass) (*config.Settings, error) {
	r, ok := pass.ResultOf[Analyzer].(*Result)
	if !ok {
		return nil, fmt.Errorf("%s does not require %s", pass.Analyzer.Name, Analyzer.Name)
	}
	r.once.Do(func() { r.s, r.err = r.src.ForDir(r.dir) })
	return r.s, r.err
}

// dirOf is the directory of the package's first file with a name, or "."
// (the driver's directory) for a package without one.
func dirOf(pass *analysis.Pass) string {
	for _, f := range pass.Files {
		if name := pass.Fset.File(f.Pos()).Name(); name != "" {
			return filepath.Dir(name)
		}
	}
	return "."
}

// Bind returns the analyzers of roots resolving their settings through src.
// Every analyzer that requires Analyzer, directly or not, is copied, its
// copy requiring the copies and a settings analyzer of src; the others
// (inspect, buildssa, ...) are shared. A copy runs the original's Run with
// ResultOf keyed by the originals, so the analyzers' code reads its
// dependencies' results as always. With the zero Source, roots itself is
// returned. The result is one consistent set: do not mix its analyzers with
// the originals in one run (a fact type may have one analyzer only).
func Bind(roots []*analysis.Analyzer, src config.Source) []*analysis.Analyzer {
	if src.Overrides == (config.Overrides{}) && src.ReadFile == nil {
		return roots
	}
	b := &binder{
		copies:   map[*analysis.Analyzer]*analysis.Analyzer{Analyzer: New(src)},
		original: map[*analysis.Analyzer]*analysis.Analyzer{},
	}
	b.original[b.copies[Analyzer]] = Analyzer
	out := make([]*analysis.Analyzer, len(roots))
	for i, a := range roots {
		out[i] = b.bind(a)
	}
	return out
}

type binder struct {
	copies   map[*analysis.Analyzer]*analysis.Analyzer // original -> copy (or itself when shared)
	original map[*analysis.Analyzer]*analysis.Analyzer // copy -> original
}

func (b *binder) bind(a *analysis.Analyzer) *analysis.Analyzer {
	if c, ok := b.copies[a]; ok {
		return c
	}
	requires := make([]*analysis.Analyzer, len(a.Requires))
	changed := false
	for i, r := range a.Requires {
		requires[i] = b.bind(r)
		changed = changed || requires[i] != r
	}
	if !changed {
		b.copies[a] = a
		return a
	}
	c := *a
	c.Requires = requires
	orig := a
	c.Run = func(pass *analysis.Pass) (any, error) {
		p := *pass
		p.ResultOf = make(map[*analysis.Analyzer]any, len(pass.ResultOf))
		for dep, res := range pass.ResultOf {
			if o, ok := b.original[dep]; ok {
				dep = o
			}
			p.ResultOf[dep] = res
		}
		return orig.Run(&p)
	}
	b.copies[a] = &c
	b.original[&c] = a
	return &c
}
