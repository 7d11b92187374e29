package elector

import (
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
	mu       sync.Mutex
	deadline time.Time
	expired  bool // the deadline passed and the leader context was cancelled
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

// expire marks the term expired if its deadline is still d, that is, no
// renew moved it since the caller's timer was set.
func (s *leaseState) expire(d time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deadline.After(d) {
		return false
	}
	s.expired = true
	return true
}

func (s *leaseState) get() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deadline
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
