// Package elector is a stub of this module's elector package for analyzer
// tests (the GOPATH-style testdata tree cannot see the real one): the
// exported names and signatures the fixtures use, trivial bodies.
package elector

import (
	"context"
	"time"
)

// Timing is the one timing model of a candidate.
type Timing struct {
	LeaseDuration time.Duration
	RenewInterval time.Duration
	RetryInterval time.Duration
	DriftBound    time.Duration
	StopBudget    time.Duration
}

// DefaultTiming returns the defaults.
func DefaultTiming() Timing {
	return Timing{
		LeaseDuration: 15 * time.Second,
		RenewInterval: 5 * time.Second,
		RetryInterval: 2 * time.Second,
		DriftBound:    500 * time.Millisecond,
		StopBudget:    time.Second,
	}
}

// Validate reports every inconsistency of the model.
func (t Timing) Validate() error { return nil }

// Term identifies one holding of a lease.
type Term struct {
	Name   string
	Holder string
	Token  uint64
}

// Record is what a store holds for a lease.
type Record struct {
	Term Term
}

// Store is the lease store contract.
type Store interface {
	Acquire(ctx context.Context, name, holder string, ttl time.Duration) (Term, error)
	Renew(ctx context.Context, t Term, ttl time.Duration) error
	Release(ctx context.Context, t Term) error
	Read(ctx context.Context, name string) (Record, error)
}

// Lease is the leadership a candidate holds while its work runs.
type Lease struct{ term Term }

// Token is the fencing token of the term.
func (l Lease) Token() uint64 { return l.term.Token }

// Work is leader-only work; ctx ends when leadership does.
type Work func(ctx context.Context, lease Lease) error

// Candidate competes for one lease.
type Candidate struct{ timing Timing }

// Option configures a Candidate.
type Option func(*Candidate)

// WithTiming sets the timing model.
func WithTiming(t Timing) Option { return func(c *Candidate) { c.timing = t } }

// WithIdentity sets the owner identity.
func WithIdentity(id string) Option { return func(c *Candidate) {} }

// New returns a candidate for the lease name in store.
func New(store Store, name string, opts ...Option) (*Candidate, error) { return &Candidate{}, nil }

// Run competes for the lease and runs work while leader.
func (c *Candidate) Run(ctx context.Context, work Work) error { return nil }
