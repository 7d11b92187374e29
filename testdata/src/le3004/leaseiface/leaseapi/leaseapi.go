package leaseapi // want package:"has lease wrappers"

// leaseapi declares a project's own lease contract, a task record that
// forwards to it, and an interface that only waits.

import (
	"context"
	"errors"
	"time"
)

// ErrHeld is returned by Acquire while another holder has the lease.
var ErrHeld = errors.New("lease held elsewhere")

// Lease is a distributed lease that expires after its TTL unless extended.
type Lease interface {
	Acquire(ctx context.Context, ttl time.Duration) error
	Extend(ctx context.Context, ttl time.Duration) error
	Release(ctx context.Context) error
}

// Gate admits one caller at a time; Acquire waits at most timeout. It
// cannot be extended: the duration is a wait, not a time to live.
type Gate interface {
	Acquire(ctx context.Context, timeout time.Duration) error
	Release(ctx context.Context) error
}

// Slot is a named lease whose renewal is an update of its lease.
type Slot interface {
	TryLock(ctx context.Context, name string, ttl time.Duration) (bool, error)
	UpdateLease(ctx context.Context, name string, ttl time.Duration) error
	Unlock(ctx context.Context, name string) error
}

// Task is a unit of work guarded by a lease.
type Task struct {
	ID    string
	Lease Lease
}

// memLease is the single-process stand-in: it never expires, but callers
// program against Lease, whose contract does.
type memLease struct{ held bool }

func (m *memLease) Acquire(ctx context.Context, ttl time.Duration) error {
	if m.held {
		return ErrHeld
	}
	m.held = true
	return nil
}
func (m *memLease) Extend(ctx context.Context, ttl time.Duration) error { return nil }
func (m *memLease) Release(ctx context.Context) error                   { m.held = false; return nil }

func (t *Task) lease() Lease {
	if t.Lease == nil {
		t.Lease = &memLease{}
	}
	return t.Lease
}

// TakeLease acquires the task's lease for ttl.
func (t *Task) TakeLease(ctx context.Context, ttl time.Duration) error { // want TakeLease:"lease acquire via leaseapi.Lease.Acquire"
	if t.Lease == nil {
		t.Lease = &memLease{}
	}
	return t.Lease.Acquire(ctx, ttl)
}

// ExtendLease pushes the task's lease out by ttl.
func (t *Task) ExtendLease(ctx context.Context, ttl time.Duration) error { // want ExtendLease:"lease renew via leaseapi.Lease.Extend"
	return t.lease().Extend(ctx, ttl)
}

// ReleaseLease gives the task's lease back.
func (t *Task) ReleaseLease(ctx context.Context) error { // want ReleaseLease:"lease unlock via leaseapi.Lease.Release"
	return t.Lease.Release(ctx)
}

// Hold acquires l for ttl: a function wrapper, the lease its first
// parameter.
func Hold(l Lease, ctx context.Context, ttl time.Duration) error { // want Hold:"lease acquire via leaseapi.Lease.Acquire"
	return l.Acquire(ctx, ttl)
}

// WithLease runs fn under l and releases it: a scope, not an acquire its
// caller holds.
func WithLease(ctx context.Context, l Lease, ttl time.Duration, fn func(context.Context) error) error {
	if err := l.Acquire(ctx, ttl); err != nil {
		return err
	}
	defer l.Release(ctx)
	return fn(ctx)
}
