// Package keptflag holds leadership flags set from a lease's answer and
// kept, or not, when the lease call fails.
package keptflag

import (
	"context"
	"errors"
	"log"
	"sync/atomic"
	"time"
)

// Lease is a lock with an expiry: Acquire takes (or renews) it for ttl.
type Lease interface {
	Acquire(key string, ttl time.Duration) (bool, error)
	Give(key string) (bool, error)
}

// Mutexish is a lock without an expiry.
type Mutexish interface {
	TryLock(key string) (bool, error)
}

// Checker is not a lock: its bool answers another question.
type Checker interface {
	Probe(key string, timeout time.Duration) (bool, error)
}

// Seat keeps its leadership in an atomic.Bool behind a setter.
type Seat struct {
	lease  Lease
	key    string
	leader atomic.Bool
	quit   chan struct{}
}

func (s *Seat) setLeader(v bool) { s.leader.Store(v) }

// Leads gates the leader's work.
func (s *Seat) Leads() bool { return s.leader.Load() }

func (s *Seat) round() time.Duration {
	if got, err := s.lease.Acquire(s.key, 10*time.Second); err == nil { // want "leadership flag leader is not reset when \\(keptflag.Lease\\).Acquire fails"
		s.setLeader(got)
	} else {
		log.Printf("lease %s: %v", s.key, err)
	}
	if s.Leads() {
		return time.Second
	}
	return 5 * time.Second
}

func (s *Seat) Loop() {
	for {
		select {
		case <-time.After(s.round()):
		case <-s.quit:
			return
		}
	}
}

// Clearing resets the flag on the error path: silent (twin: Seat.round).
type Clearing struct {
	lease  Lease
	leader atomic.Bool
}

func (c *Clearing) Leads() bool { return c.leader.Load() }

func (c *Clearing) Loop() {
	for {
		if got, err := c.lease.Acquire("k", time.Minute); err == nil {
			c.leader.Store(got)
		} else {
			log.Printf("lease: %v", err)
			c.leader.Store(false)
		}
		time.Sleep(time.Second)
	}
}

// Cancelling stops the leader's work on the error path: silent (twin:
// Counter.Loop, which only logs).
type Cancelling struct {
	lease  Lease
	leader atomic.Bool
	stop   context.CancelFunc
}

func (c *Cancelling) Leads() bool { return c.leader.Load() }

func (c *Cancelling) Loop() {
	for {
		if got, err := c.lease.Acquire("k", time.Minute); err == nil {
			c.leader.Store(got)
		} else {
			log.Printf("lease: %v", err)
			c.stop()
		}
		time.Sleep(time.Second)
	}
}

// Counter keeps an int32 flag set by atomic.StoreInt32, the failure
// returning early.
type Counter struct {
	lease Lease
	flag  int32
}

func (c *Counter) Leads() bool { return atomic.LoadInt32(&c.flag) == 1 }

func (c *Counter) Loop() {
	for {
		got, err := c.lease.Acquire("k", time.Minute) // want "leadership flag flag is not reset"
		if err != nil {
			log.Printf("lease: %v", err)
			time.Sleep(time.Second)
			continue
		}
		if got {
			atomic.StoreInt32(&c.flag, 1)
		}
		time.Sleep(time.Second)
	}
}

// Unread sets a flag nothing reads: nothing is gated by it, silent
// (twin: Counter).
type Unread struct {
	lease Lease
	flag  int32
}

func (u *Unread) Loop() {
	for {
		got, err := u.lease.Acquire("k", time.Minute)
		if err != nil {
			log.Printf("lease: %v", err)
			continue
		}
		if got {
			atomic.StoreInt32(&u.flag, 1)
		}
	}
}

// Plain is a bool field; its lock has no expiry, so a failed re-acquire
// leaves it held and the kept flag is right: silent (twin: Prober's
// Acquire form, Seat).
type Plain struct {
	m      Mutexish
	leader bool
}

func (p *Plain) Leads() bool { return p.leader }

func (p *Plain) Loop() {
	for {
		if got, err := p.m.TryLock("k"); err == nil {
			p.leader = got
		} else {
			log.Printf("lock: %v", err)
		}
	}
}

// Prober's Probe is no lock: silent; its Acquire twin reports.
type Prober struct {
	c      Checker
	lease  Lease
	leader bool
	ready  bool
}

func (p *Prober) Leads() bool { return p.leader }
func (p *Prober) Ready() bool { return p.ready }

func (p *Prober) Loop() {
	for {
		if ok, err := p.c.Probe("k", time.Second); err == nil {
			p.ready = ok
		} else {
			log.Printf("probe: %v", err)
		}
		if got, err := p.lease.Acquire("k", time.Second); err == nil { // want "leadership flag leader is not reset"
			p.leader = got
		} else {
			log.Printf("lease: %v", err)
		}
	}
}

// Once asks once: the flag it keeps on failure is the initial false,
// silent (twin: Seat.round, called from a loop).
type Once struct {
	lease  Lease
	leader atomic.Bool
}

func (o *Once) Leads() bool { return o.leader.Load() }

func (o *Once) Start() {
	if got, err := o.lease.Acquire("k", time.Minute); err == nil {
		o.leader.Store(got)
	} else {
		log.Printf("lease: %v", err)
	}
}

// Handing hands the failure to its caller, who may clear the flag or stop:
// silent (twin: Counter).
type Handing struct {
	lease  Lease
	leader atomic.Bool
}

func (h *Handing) Leads() bool { return h.leader.Load() }

var errLease = errors.New("lease lost")

func (h *Handing) round() error {
	got, err := h.lease.Acquire("k", time.Minute)
	if err != nil {
		log.Printf("lease: %v", err)
		return errLease
	}
	h.leader.Store(got)
	return nil
}

func (h *Handing) Loop() {
	for {
		if err := h.round(); err != nil {
			h.leader.Store(false)
		}
	}
}

// Resetting calls its setter with false on failure: silent (twin: Seat).
type Resetting struct {
	lease  Lease
	leader atomic.Bool
}

func (r *Resetting) set(v bool)  { r.leader.Store(v) }
func (r *Resetting) Leads() bool { return r.leader.Load() }

func (r *Resetting) Loop() {
	for {
		if got, err := r.lease.Acquire("k", time.Minute); err == nil {
			r.set(got)
		} else {
			log.Printf("lease: %v", err)
			r.set(false)
		}
	}
}
