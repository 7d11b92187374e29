package lockfacts

import "golang.org/x/tools/go/ssa"

// InCycle reports whether b can reach itself: it is in a loop. The lease
// rules ask it of renewal calls (a renewal outside a loop is a one-shot
// acquire, not a renewal pace).
func InCycle(b *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	work := append([]*ssa.BasicBlock(nil), b.Succs...)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == b {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		work = append(work, x.Succs...)
	}
	return false
}
