package lockexpiry

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// casLocks reports the acquire of a lock the project builds from a store
// key's compare-and-swap (lockfacts.CASLocks: swapped from empty in a
// Lock-like function, swapped back or deleted in the Unlock-like one) when
// nothing can end the held value: the swap takes no TTL, time or option,
// and the acquire never takes over a stale holder.
func casLocks(p *rule.Pass) {
	seen := map[*lockfacts.CAS]bool{}
	for _, l := range lockfacts.CASLocks(p.Pkg, p.TypesInfo, p.KB, p.Files()) {
		if l.Expiry || seen[l.Swap] {
			continue
		}
		seen[l.Swap] = true
		p.Reportf(l.Swap.Call, []analysis.RelatedInformation{rule.Related(l.Back, "the lock is released here, by setting the key back")},
			"%s takes the lock in %s by swapping the key (%s) from empty to the holder's value, and %s releases it by setting it back: "+
				"%s takes no TTL and nothing takes over a stale holder, so if the holder dies while it holds the lock, "+
				"the key keeps its value and every later acquirer waits forever; give the held value an expiry "+
				"(a TTL the store enforces, renewed while held) and let others take over an expired holder, or use the elector",
			l.Swap.Method.Name(), funcLabel(l.Recv, l.Acquire.Name.Name), lockfacts.ExprText(l.Swap.Key),
			funcLabel(l.Recv, l.Release.Name.Name), l.Swap.Method.Name())
	}
}
