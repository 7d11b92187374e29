package main

import (
	"os"
	"sync"
)

// admission decides which of the packages whose imports are done is
// type-checked and analyzed next. Counting packages alone (GOMAXPROCS at a
// time) let two of the largest run together: on vitess.io/vitess the
// 2.8 MB parser package and its test variant (3.3 MB), which have the same
// imports and so become ready together, held 1082 MB live at once, against
// about 460 MB for the parser package alone, and the garbage collector's
// goal (twice the live heap) set the process's peak from that. So at most
// one large package is in flight, beside small ones, and of the packages
// waiting the largest that may run goes first (large packages tend to be on
// the critical path; starting them early leaves the small ones to fill the
// other processors).
type admission struct {
	mu           sync.Mutex
	slots        int // at most this many at once (GOMAXPROCS)
	running      int
	largeRunning bool
	waiting      []*admissionWaiter
}

// largePackage is the weight from which a package runs beside no other
// large one: 1 MB of source to analyze. On vitess (2875 packages with the
// closure) 13 packages weigh that or more, and the largest of them hold 460
// to 840 MB live each while analyzed; the rest of the closure runs beside
// them as before.
const largePackage = 1 << 20

type admissionWaiter struct {
	weight int64
	ready  chan struct{}
}

func newAdmission(slots int) *admission {
	return &admission{slots: max(1, slots)}
}

// acquire blocks until a package of this weight may run.
func (a *admission) acquire(weight int64) {
	w := &admissionWaiter{weight: weight, ready: make(chan struct{})}
	a.mu.Lock()
	a.waiting = append(a.waiting, w)
	a.dispatch()
	a.mu.Unlock()
	<-w.ready
}

// release gives back what acquire(weight) took.
func (a *admission) release(weight int64) {
	a.mu.Lock()
	a.running--
	if weight >= largePackage {
		a.largeRunning = false
	}
	a.dispatch()
	a.mu.Unlock()
}

// dispatch admits the largest waiting packages that may run. Called with
// mu held.
func (a *admission) dispatch() {
	for a.running < a.slots {
		best := -1
		for i, w := range a.waiting {
			allowed := w.weight < largePackage || !a.largeRunning
			if allowed && (best < 0 || w.weight > a.waiting[best].weight) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := a.waiting[best]
		a.waiting[best] = a.waiting[len(a.waiting)-1]
		a.waiting = a.waiting[:len(a.waiting)-1]
		a.running++
		if w.weight >= largePackage {
			a.largeRunning = true
		}
		close(w.ready)
	}
}

// weight is what a package costs to hold while it is processed, measured
// in bytes of source: its files' sizes, an eighth of that for a package
// type-checked for its declarations only (no function bodies, no
// types.Info, no analysis: runtime's 2.6 MB took 189 ms on vitess).
func weight(u *unit) int64 {
	var n int64
	for _, f := range u.pkg.CompiledGoFiles {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	if u.declsOf {
		n /= 8
	}
	return n
}
