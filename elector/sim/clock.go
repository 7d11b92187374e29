package sim

import (
	"context"
	"sync"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// window is an interval of global (bubble) time.
type window struct{ from, to time.Time }

func (w window) contains(t time.Time) bool { return !t.Before(w.from) && t.Before(w.to) }

// overlap is how much of w lies inside [from, to).
func (w window) overlap(from, to time.Time) time.Duration {
	a, b := w.from, w.to
	if from.After(a) {
		a = from
	}
	if to.Before(b) {
		b = to
	}
	if b.After(a) {
		return b.Sub(a)
	}
	return 0
}

// pauseSchedule is when a process is stopped (a long GC, SIGSTOP, a frozen
// VM): nothing in it runs, so its timers and store answers are only noticed
// when the pause ends.
type pauseSchedule []window

// resumeAt is when a process that wants to run at t actually runs.
func (p pauseSchedule) resumeAt(t time.Time) time.Time {
	for _, w := range p {
		if w.contains(t) {
			t = w.to
		}
	}
	return t
}

// Everything a process has pending when a pause ends happens at one instant
// of virtual time, in an order the Go scheduler picks. To keep seeds
// reproducible, a resuming process handles its timers first, then store
// answers (after answerLag), then its work (after workLag).
const (
	answerLag = time.Microsecond
	workLag   = 2 * time.Microsecond
)

// pausedAt is when the pause containing t began (t if none does).
func (p pauseSchedule) pausedAt(t time.Time) time.Time {
	from := t
	for _, w := range p {
		if w.contains(t) && w.from.Before(from) {
			from = w.from
		}
	}
	return from
}

// waitRunning blocks until the process is not paused or ctx ends; if it was
// paused, it resumes lag after the pause ends.
func (p pauseSchedule) waitRunning(ctx context.Context, lag time.Duration) error {
	now := time.Now()
	r := p.resumeAt(now)
	if !r.After(now) {
		return ctx.Err()
	}
	return sleepCtx(ctx, r.Sub(now)+lag)
}

// driftClock is a process's clock: it runs at rate times global time (the
// bubble's time, which is also the store's clock) and its timers fire late
// when the process is paused. It is the elector.Clock the real Candidate runs
// on in the simulation.
type driftClock struct {
	born   time.Time // global time when the process started
	rate   float64
	pauses pauseSchedule
}

func (c *driftClock) Now() time.Time {
	elapsed := time.Since(c.born)
	return c.born.Add(time.Duration(float64(elapsed) * c.rate))
}

// global converts a local duration into global time.
func (c *driftClock) global(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.rate)
}

func (c *driftClock) NewTimer(d time.Duration) elector.Timer {
	t := &driftTimer{ch: make(chan time.Time, 1)}
	if d < 0 {
		d = 0
	}
	var fire func()
	fire = func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		// A paused process notices the timer only when it resumes. Timers
		// that fell due during the pause fire in the order they were due,
		// a few nanoseconds apart, not all at the instant of resuming:
		// Go's scheduler would order those at random, and seeds would not
		// replay.
		now := time.Now()
		if r := c.pauses.resumeAt(now); r.After(now) {
			lag := now.Sub(c.pauses.pausedAt(now)) / 1e6
			t.t = time.AfterFunc(r.Sub(now)+lag, fire)
			return
		}
		t.stopped = true
		t.ch <- c.Now()
	}
	t.mu.Lock()
	t.t = time.AfterFunc(c.global(d), fire)
	t.mu.Unlock()
	return t
}

type driftTimer struct {
	t       *time.Timer
	ch      chan time.Time
	mu      sync.Mutex
	stopped bool
}

func (t *driftTimer) C() <-chan time.Time { return t.ch }

func (t *driftTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	t.t.Stop()
	return was
}
