// Package projectlocks computes, once per package, the locks a project
// writes itself over a store (lockfacts.ProjectLocksWith), on first use,
// for both rules that read them: LE3001 lockexpiry (the acquire gives the
// lock no end) and LE3002 unsafeunlock (the release deletes by key only).
// One reading for both, statements folded through the effects analysis's
// value flow and lock documents included, so a lock LE3001 sees is one
// LE3002 judges the release of.
package projectlocks

import (
	"go/types"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
)

// Analyzer's result is a *Result; the locks are computed on the first call
// of Locks, so a package whose rules are disabled, or that imports no
// known store, pays nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesiftprojectlocks",
	Doc:        "find the locks a project writes itself over a store (read by LE3001 and LE3002)",
	Run:        run,
	Requires:   []*analysis.Analyzer{settings.Analyzer, effects.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	FactTypes:  []analysis.Fact{new(lockfacts.RowFact)},
}

// Result holds the package's project locks, computed once.
type Result struct {
	pass  *analysis.Pass
	fold  lockfacts.Folder
	once  sync.Once // the two rules may run at once on one package
	locks []*lockfacts.ProjectLock
	err   error
	// carried: the rows the functions of other packages this package calls
	// write (rowfacts.go), imported while the pass runs
	carried map[*types.Func]*lockfacts.RowFact
}

func run(pass *analysis.Pass) (any, error) {
	r := &Result{pass: pass, carried: exportFacts(pass)}
	if eff, ok := pass.ResultOf[effects.Analyzer].(*effects.Result); ok && eff != nil {
		r.fold = eff
	}
	return r, nil
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
		files := rule.ReadFiles(r.pass.Fset, r.pass.Files, r.pass.Pkg.Path(), conf.Config)
		r.locks = lockfacts.ProjectLocksWith(r.pass.TypesInfo, conf.Knowledge, files,
			lockfacts.ProjectLockOptions{Fold: r.fold, Documents: true, Carried: r.carried})
		r.pass, r.fold = nil, nil // the pass is not kept alive by the checker's results
	})
	return r.locks, r.err
}

// Carries reports whether the package calls functions of other packages
// that write lock rows (a rule that reads project locks runs although the
// package imports no store itself).
func Carries(p *rule.Pass) bool {
	return len(p.ResultOf[Analyzer].(*Result).carried) > 0
}

// Of returns the package's project locks for a rule pass whose analyzer
// requires Analyzer.
func Of(p *rule.Pass) ([]*lockfacts.ProjectLock, error) {
	return p.ResultOf[Analyzer].(*Result).Locks()
}
