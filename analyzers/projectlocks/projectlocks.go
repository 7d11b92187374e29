// Package projectlocks computes, once per package, the locks a project
// writes itself over a store (lockfacts.ProjectLocks) as LE3002
// unsafeunlock reads them (a release by key only), on first use. LE3001
// lockexpiry reads more (statements folded through the effects analysis's
// value flow, lock documents) and computes its own with those options: a
// release by key of such a lock is not yet evidence enough for LE3002.
package projectlocks

import (
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
)

// Analyzer's result is a *Result; the locks are computed on the first call
// of Locks, so a package whose rules are disabled, or that imports no
// known store, pays nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesiftprojectlocks",
	Doc:        "find the locks a project writes itself over a store (read by LE3002)",
	Run:        run,
	Requires:   []*analysis.Analyzer{settings.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
}

// Result holds the package's project locks, computed once.
type Result struct {
	pass  *analysis.Pass
	once  sync.Once // the two rules may run at once on one package
	locks []*lockfacts.ProjectLock
	err   error
}

func run(pass *analysis.Pass) (any, error) {
	return &Result{pass: pass}, nil
}

// Locks returns the project locks of the files the rules read (rule.Skips
// under the package's settings: the same files as rule.Pass.Files), with
// the knowledge base of those settings. The error is the settings' (a
// malformed configuration), which the rules report themselves first.
func (r *Result) Locks() ([]*lockfacts.ProjectLock, error) {
	r.once.Do(func() {
		conf, err := settings.Of(r.pass)
		if err != nil {
			r.err = err
			return
		}
		files := r.pass.Files[:0:0]
		for _, f := range r.pass.Files {
			if !rule.Skips(r.pass.Fset, f, r.pass.Pkg.Path(), conf.Config) {
				files = append(files, f)
			}
		}
		r.locks = lockfacts.ProjectLocks(r.pass.TypesInfo, conf.Knowledge, files)
		r.pass = nil // the pass is not kept alive by the checker's results
	})
	return r.locks, r.err
}

// Of returns the package's project locks for a rule pass whose analyzer
// requires Analyzer.
func Of(p *rule.Pass) ([]*lockfacts.ProjectLock, error) {
	return p.ResultOf[Analyzer].(*Result).Locks()
}
