package unsafeunlock

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// projectLocks reports the release of a lock the project writes itself
// (lockfacts.ProjectLocks) that deletes the row by its key alone: no owner
// or token predicate, no expiry condition.
func projectLocks(p *rule.Pass) {
	info := p.TypesInfo
	seen := map[*lockfacts.RowOp]bool{}
	for _, l := range lockfacts.ProjectLocks(info, p.KB, p.Files()) {
		d := l.Delete
		if !d.Keyed || d.OwnerPred || d.Expiry || seen[d] {
			continue
		}
		seen[d] = true
		if op := lockfacts.Classify(info, p.KB, d.Call); op != nil && op.Stmt != nil && releaseByName(op.Stmt) {
			continue // reported as a lock row of its table already
		}
		p.Reportf(d.Call, []analysis.RelatedInformation{rule.Related(l.Insert.Call, "the lock is taken here, by inserting the row")},
			"%s releases the lock of %s by deleting its row of %s by key only, with no owner or token predicate: "+
				"a replica whose acquire failed, or whose lock was taken over, frees the current holder's lock this way, "+
				"and another replica starts the same work; delete only the row this replica inserted "+
				"(AND owner = $me, or the token the acquire stored) and check the rows affected, or use the elector",
			d.What, funcLabel(l.Recv, l.Release.Name.Name), d.Table)
	}
}

func funcLabel(recv, name string) string {
	if recv == "" {
		return name
	}
	return "(" + recv + ")." + name
}
