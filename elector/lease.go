package elector

import (
	"context"
	"sync"
	"time"
)

// Lease is the leader's view of its current term, passed to the work. Pass
// Token to every write the work makes so the resource can fence out a stale
// leader (see Fence, CheckToken and SetTokenHeader).
type Lease struct {
	term Term
	st   *leaseState
}

type leaseState struct {
	clock  Clock
	cancel context.CancelCauseFunc // cancels the leader context
	done   <-chan struct{}         // the leader context's Done
	// expiredCh is closed, together with setting expired and cancelling
	// the leader context, when the deadline has passed.
	expiredCh chan struct{}

	mu       sync.Mutex
	deadline time.Time
	expired  bool // the deadline passed and the leader context was cancelled
	// noticed is when, on the clock, the expiry was noticed: later than the
	// deadline by a scheduling delay, or by a freeze of the process.
	noticed time.Time
}

func newLeaseState(clock Clock, deadline time.Time, leaderCtx context.Context, cancel context.CancelCauseFunc) *leaseState {
	return &leaseState{clock: clock, cancel: cancel, done: leaderCtx.Done(), expiredCh: make(chan struct{}), deadline: deadline}
}

// extend moves the deadline to d (if later) unless the term already expired
// by now; it reports whether the term is still live. Checking and moving
// under one lock keeps a late renew from reviving a cancelled term.
func (s *leaseState) extend(now, d time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.expired || !now.Before(s.deadline) {
		return false
	}
	if d.After(s.deadline) {
		s.deadline = d
	}
	return true
}

func (s *leaseState) hasExpired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expired
}

// expire ends the term if its deadline is still d, that is, no renew moved
// it since the caller's timer was set; it reports whether the term is over.
func (s *leaseState) expire(d time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deadline.After(d) {
		return false
	}
	s.expireLocked()
	return true
}

// check ends the term at once if the deadline has passed by the clock,
// without waiting for the watchdog's timer (which fires late after the
// process was frozen), and reports whether the deadline is still ahead.
func (s *leaseState) check() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.expired {
		return false
	}
	if !s.clock.Now().Before(s.deadline) {
		s.expireLocked()
		return false
	}
	return true
}

// expireLocked marks the term expired, cancels the leader context and
// closes expiredCh, all under s.mu, so whoever sees one sees all three.
func (s *leaseState) expireLocked() {
	if s.expired {
		return
	}
	s.expired = true
	s.noticed = s.clock.Now()
	s.cancel(ErrDeadlinePassed)
	close(s.expiredCh)
}

// lateness is how long after the deadline its expiry was noticed; zero if
// the term did not expire.
func (s *leaseState) lateness() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.expired {
		return 0
	}
	return max(0, s.noticed.Sub(s.deadline))
}

func (s *leaseState) get() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deadline
}

// leaderContext is the work's context. Its Err and Done consult the
// deadline on the candidate's clock synchronously: after a process was
// frozen past its deadline (SIGSTOP, a VM pause, a long GC), the first
// check the work makes on resuming sees the term over, instead of racing
// the watchdog goroutine. Contexts derived from it are cancelled by the
// watchdog or by the first such check, whichever comes first.
type leaderContext struct {
	context.Context
	st *leaseState
}

func (c leaderContext) Done() <-chan struct{} {
	c.st.check()
	return c.Context.Done()
}

func (c leaderContext) Err() error {
	c.st.check()
	return c.Context.Err()
}

// Token is the fencing token of the term.
func (l Lease) Token() uint64 { return l.term.Token }

// Name is the lease name.
func (l Lease) Name() string { return l.term.Name }

// Holder is the identity the term was granted to.
func (l Lease) Holder() string { return l.term.Holder }

// Term is the store's term.
func (l Lease) Term() Term { return l.term }

// Deadline is when the leader context will be cancelled unless a renew
// succeeds first, on the candidate's clock. It moves with each renew.
func (l Lease) Deadline() time.Time {
	if l.st == nil {
		return time.Time{}
	}
	return l.st.get()
}

// Valid reports whether the term is still live by the candidate's clock,
// checked now: the leader context has not ended and the deadline has not
// passed. Call it (or ctx.Err) right before a write that is not fenced; a
// term found over is ended at once (ErrDeadlinePassed). It does not ask the
// store: only a fencing token checked at the resource guards against a
// process frozen between Valid and the write.
func (l Lease) Valid() bool {
	if l.st == nil {
		return false
	}
	if !l.st.check() {
		return false
	}
	select {
	case <-l.st.done:
		return false
	default:
		return true
	}
}
