package unsafeunlock

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/expiryfilelocks"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/projectlocks"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// projectLocks reports the release of a lock the project writes itself
// (lockfacts.ProjectLocksWith) that deletes the row by its key alone: no owner
// or token predicate, no expiry condition, and no read of the owner before
// it (a check in two steps, not this message's case), and not run only
// while an in-process flag the acquire sets says this instance holds it.
func projectLocks(p *rule.Pass) error {
	locks, err := projectlocks.Of(p)
	if err != nil {
		return err
	}
	info := p.TypesInfo
	seen := map[*lockfacts.RowOp]bool{}
	for _, l := range locks {
		d := l.Delete
		if !d.Keyed || d.OwnerPred || d.Expiry || l.OwnerRead || l.HeldFlag || seen[d] {
			continue
		}
		seen[d] = true
		if op := lockfacts.Classify(info, p.KB, d.Call); op != nil && op.Stmt != nil && releaseByName(op.Stmt) {
			continue // reported as a lock row of its table already
		}
		row := "row"
		if d.Doc {
			row = "document"
		}
		p.Reportf(d.Call, []analysis.RelatedInformation{rule.Related(l.Insert.Call, "the lock is taken here, by inserting the %s", row)},
			"%s releases the lock of %s by deleting its %s of %s by key only, with no owner or token predicate: "+
				"a replica whose acquire failed, or whose lock was taken over, frees the current holder's lock this way, "+
				"and another replica starts the same work; delete only the row this replica inserted "+
				"(AND owner = $me, or the token the acquire stored) and check the rows affected, or use the elector",
			d.What, lockfacts.FuncLabel(l.Recv, l.Release.Name.Name), row, d.Label)
	}
	return nil
}

// fileLocks reports the release of a lock file that removes the file
// without reading it, when the acquire takes over stale lock files.
func fileLocks(p *rule.Pass) {
	for _, l := range lockfacts.FileLocks(p.TypesInfo, p.KB, p.Files()) {
		p.Reportf(l.Remove, []analysis.RelatedInformation{
			rule.Related(l.Create, "the lock file is created here, only if absent"),
			rule.Related(l.Takeover, "a lock file judged stale is removed here, and the lock taken over"),
		},
			"%s releases the lock file of %s by removing it without reading it, so without checking that it is still this "+
				"holder's: %s removes a lock file it judges stale and takes the lock, so a holder that stalls loses the lock "+
				"to another instance, and its release then removes that instance's lock file and a third instance starts the "+
				"same work; write an owner token into the lock file and remove it only while it is still yours, or use the elector",
			removeName(p, l.Remove), lockfacts.FuncLabel(l.Recv, l.Release.Name.Name), lockfacts.FuncLabel(l.Recv, l.Acquire.Name.Name))
	}
}

// removeName names the removal call: "os.Remove", "os.RemoveAll".
func removeName(p *rule.Pass, call *ast.CallExpr) string {
	if fn := lockfacts.Callee(p.TypesInfo, call); fn != nil && fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return "the removal"
}

// expiryFileLocks reports the release of a lock file holding its expiry
// that removes the file without reading it back: once the expiry passes,
// another instance takes the lock by writing its own expiry into the same
// path, and this release then removes that instance's lock.
func expiryFileLocks(p *rule.Pass) error {
	locks, err := expiryfilelocks.Of(p)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.Remove == nil || l.Refreshed {
			continue
		}
		related := []analysis.RelatedInformation{rule.Related(l.Write, "the lock file is written here, holding its expiry")}
		if l.Stale != nil { // always set on a lock; a nil one is no reason to panic
			related = append(related, rule.Related(l.Stale, "a lock file whose expiry has passed is treated as free here"))
		}
		p.Reportf(l.Remove, related,
			"%s releases the lock file of %s (%s) by removing it without reading it back, so without checking that it is "+
				"still this holder's: once its expiry passes another instance takes the lock by writing the same path, and "+
				"this release then removes that instance's lock file and a third instance starts the same work; write a token "+
				"into the lock file and remove it only while it still holds yours, or use the elector",
			removeName(p, l.Remove), lockfacts.FuncLabel(l.Recv, l.Acquire.Name.Name), l.Release)
	}
	return nil
}
