// Package leaderelection lists the leader-election rules of gatesift-vet.
// Each rule is its own package below this one, exporting Analyzer, so a
// driver can take them one by one (nogo) or all at once (Rules).
package leaderelection

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/competingschedulers"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/leadershiploss"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/leasetiming"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/localsingleton"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/lockexpiry"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/lockrenewal"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/staticleader"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/unfencedwrite"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/unsafeunlock"
)

// Rules is every rule analyzer except LE9001 (directives), which needs the
// others to have run; package suite adds it. The order is the registry's.
var Rules = []*analysis.Analyzer{
	localsingleton.Analyzer,
	staticleader.Analyzer,
	competingschedulers.Analyzer,
	lockexpiry.Analyzer,
	unsafeunlock.Analyzer,
	unfencedwrite.Analyzer,
	lockrenewal.Analyzer,
	leadershiploss.Analyzer,
	leasetiming.Analyzer,
}
