package lockrenewal

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/expiryfilelocks"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// checkExpiryFiles reports a lock file whose expiry is fixed when it is
// written (lockfacts.ExpiryFileLocks) and that nothing in the package
// rewrites or touches while the lock is held: the acquire hands its caller
// a release, so the work runs between the two for as long as it takes, and
// once the expiry passes another instance treats the file as free.
func (c *checker) checkExpiryFiles() error {
	locks, err := expiryfilelocks.Of(c.p)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.Refreshed {
			continue
		}
		label := lockfacts.FuncLabel(l.Recv, l.Acquire.Name.Name)
		related := []analysis.RelatedInformation{rule.Related(l.Write, "the lock file is written here")}
		if l.Stale != nil { // always set on a lock; a nil one is no reason to panic
			related = append(related, rule.Related(l.Stale, "a lock file whose expiry has passed is treated as free here"))
		}
		c.p.Reportf(l.Expiry, related,
			"%s takes a lock by writing a lock file that holds this expiry, fixed once when the lock is taken, and nothing rewrites the file while the lock "+
				"is held: the work between %s and %s runs for as long as it takes, so once the expiry passes another "+
				"instance takes the lock and runs the same work concurrently; rewrite the expiry periodically while "+
				"holding the lock and stop the work when that fails, or use the elector",
			label, label, l.Release)
	}
	return nil
}
