// Package expiryfilelocks computes, once per package, the lock files whose
// content is their expiry (lockfacts.ExpiryFileLocks), on first use, for
// both rules that read them: LE3002 unsafeunlock (the release removes the
// file without reading it back) and LE3004 lockrenewal (the expiry is
// fixed when the file is written and never rewritten). One reading for
// both, so a lock LE3004 sees is one LE3002 judges the release of.
package expiryfilelocks

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
// known API, pays nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesiftexpiryfilelocks",
	Doc:        "find the lock files whose content is their expiry (read by LE3002 and LE3004)",
	Run:        run,
	Requires:   []*analysis.Analyzer{settings.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
}

// Result holds the package's expiry file locks, computed once.
type Result struct {
	pass  *analysis.Pass
	once  sync.Once // the two rules may run at once on one package
	locks []*lockfacts.ExpiryFileLock
	err   error
}

func run(pass *analysis.Pass) (any, error) {
	return &Result{pass: pass}, nil
}

// Locks returns the expiry file locks of the files the rules read
// (rule.Skips under the package's settings: the same files as
// rule.Pass.Files), with the knowledge base of those settings. The error
// is the settings' (a malformed configuration), which the rules report
// themselves first.
func (r *Result) Locks() ([]*lockfacts.ExpiryFileLock, error) {
	r.once.Do(func() {
		conf, err := settings.Of(r.pass)
		if err != nil {
			r.err = err
			return
		}
		files := rule.ReadFiles(r.pass.Fset, r.pass.Files, r.pass.Pkg.Path(), conf.Config)
		r.locks = lockfacts.ExpiryFileLocks(r.pass.TypesInfo, conf.Knowledge, files)
		r.pass = nil // the pass is not kept alive by the checker's results
	})
	return r.locks, r.err
}

// Of returns the package's expiry file locks for a rule pass whose
// analyzer requires Analyzer.
func Of(p *rule.Pass) ([]*lockfacts.ExpiryFileLock, error) {
	return p.ResultOf[Analyzer].(*Result).Locks()
}
