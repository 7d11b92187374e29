package unsafeunlock

import (
	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// flockRemovals reports the removal of an advisory lock file's path
// (lockfacts.FlockRemovals): flock(2) locks the open file, not the path, so
// once the path is gone a new file can be created and locked beside the
// one still held or waited on.
func flockRemovals(p *rule.Pass) {
	for _, r := range lockfacts.FlockRemovals(p.TypesInfo, p.KB, p.Files()) {
		p.Reportf(r.Remove, []analysis.RelatedInformation{rule.Related(r.Acquire, "the file at this path is locked here (%s)", r.Handle)},
			"%s removes the path of a lock file locked with an advisory lock (%s, line %d): the lock is held on the open file "+
				"(its inode), not on the path, so after the removal another instance creates a new file at the path and locks it "+
				"beside the old one: after an unlock, a process that opened the old file and waits for its lock gets it while the "+
				"newcomer holds the new file's; where this process does not hold the lock, the holder keeps the old file's; "+
				"either way two instances hold the lock; keep the lock file in place (unlock or close it, never remove it), or make every acquirer re-check "+
				"after locking that the file it locked is still the one at the path (os.SameFile of os.Stat(path) and f.Stat()) "+
				"and remove it only while holding the lock",
			removeName(p, r.Remove), r.Handle, lockfacts.Line(p.Fset, r.Acquire.Pos()))
	}
}
