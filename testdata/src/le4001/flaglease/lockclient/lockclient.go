// Package lockclient holds lock clients that take a lease from a remote
// service and renew it in the background; they differ in what a failed
// renewal tells the holder.
package lockclient

import (
	"context"
	"errors"
	"log"
	"sync/atomic"
	"time"
)

var errGone = errors.New("lease gone")

// extend asks the lease service for more time.
func extend(name string, ttl time.Duration) error {
	if name == "" || ttl <= 0 {
		return errGone
	}
	return nil
}

// Lease: a failed renewal only clears held, which Held reads.
type Lease struct {
	name string
	held atomic.Bool
	stop chan struct{}
}

// Acquire takes the lease and renews it on a ticker.
func Acquire(name string) *Lease { // want Acquire:"flagLease\\(le4001/flaglease/lockclient.Lease.held\\)"
	l := &Lease{name: name, stop: make(chan struct{})}
	l.held.Store(true)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				if err := extend(l.name, 3*time.Second); err != nil {
					log.Printf("renew %s: %v", l.name, err)
					l.held.Store(false)
				}
			}
		}
	}()
	return l
}

// Held reports whether the last renewal succeeded.
func (l *Lease) Held() bool { return l.held.Load() }

// Release stops the renewals.
func (l *Lease) Release() { close(l.stop) }

// Locker is taken through its receiver; its renewer sleeps between
// renewals and, when one fails, clears locked and leaves.
type Locker struct {
	name   string
	locked int32
}

// NewLocker makes a locker that holds nothing yet.
func NewLocker(name string) *Locker { return &Locker{name: name} }

// Lock blocks until the lease is taken, then renews it.
func (k *Locker) Lock(owner string) { // want Lock:"flagLease\\(le4001/flaglease/lockclient.Locker.locked\\)"
	for extend(k.name+owner, time.Second) != nil {
		time.Sleep(time.Second)
	}
	atomic.StoreInt32(&k.locked, 1)
	go func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // the renewer's own context: the holder never sees it
		for {
			if err := k.renew(ctx); err != nil {
				log.Printf("lost %s: %v", k.name, err)
				atomic.StoreInt32(&k.locked, 0)
				return
			}
			time.Sleep(time.Second)
		}
	}()
}

func (k *Locker) renew(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return extend(k.name, 2*time.Second)
}

// Locked reports whether the renewer still holds the lease.
func (k *Locker) Locked() bool { return atomic.LoadInt32(&k.locked) == 1 }

// Unlock gives the lease back.
func (k *Locker) Unlock() { atomic.StoreInt32(&k.locked, 0) }

// CancelLease cancels the context its holder works on when a renewal
// fails: the loss reaches the work, so no fact.
type CancelLease struct {
	name   string
	held   atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
}

// AcquireCancel takes the lease; Context ends when it is lost.
func AcquireCancel(name string) *CancelLease {
	l := &CancelLease{name: name}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.held.Store(true)
	go func() {
		for {
			if err := extend(l.name, 3*time.Second); err != nil {
				log.Printf("renew %s: %v", l.name, err)
				l.held.Store(false)
				l.cancel()
				return
			}
			time.Sleep(time.Second)
		}
	}()
	return l
}

// Context is done once the lease is lost or released.
func (l *CancelLease) Context() context.Context { return l.ctx }

// Held reports whether the last renewal succeeded.
func (l *CancelLease) Held() bool { return l.held.Load() }

// LateCancelLease has the same context, but a failed renewal never
// cancels it: only Release does, so the flag is the only signal (the
// twin of CancelLease).
type LateCancelLease struct {
	name   string
	held   atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
}

// AcquireLate takes the lease; Context ends only at Release.
func AcquireLate(name string) *LateCancelLease { // want AcquireLate:"flagLease\\(le4001/flaglease/lockclient.LateCancelLease.held\\)"
	l := &LateCancelLease{name: name}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.held.Store(true)
	go func() {
		for {
			if err := extend(l.name, 3*time.Second); err != nil {
				log.Printf("renew %s: %v", l.name, err)
				l.held.Store(false)
			}
			time.Sleep(time.Second)
		}
	}()
	return l
}

// Context is done once the lease is released.
func (l *LateCancelLease) Context() context.Context { return l.ctx }

// Held reports whether the last renewal succeeded.
func (l *LateCancelLease) Held() bool { return l.held.Load() }

// Release cancels the context.
func (l *LateCancelLease) Release() { l.cancel() }

// LostLease closes lost when a renewal fails; Lost hands the channel out.
type LostLease struct {
	name string
	lost chan struct{}
}

// AcquireLost takes the lease; Lost is closed when it is lost.
func AcquireLost(name string) *LostLease { // want AcquireLost:"flagLease\\(le4001/flaglease/lockclient.LostLease.lost\\)"
	l := &LostLease{name: name, lost: make(chan struct{})}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for range t.C {
			if err := extend(l.name, 3*time.Second); err != nil {
				log.Printf("renew %s: %v", l.name, err)
				close(l.lost)
				return
			}
		}
	}()
	return l
}

// Lost is closed once a renewal fails.
func (l *LostLease) Lost() <-chan struct{} { return l.lost }

// CallbackLease calls back its holder when a renewal fails: no fact.
type CallbackLease struct {
	name   string
	held   atomic.Bool
	onLost func()
}

// AcquireCallback takes the lease and calls onLost when it is lost.
func AcquireCallback(name string, onLost func()) *CallbackLease {
	l := &CallbackLease{name: name, onLost: onLost}
	l.held.Store(true)
	go func() {
		for {
			if err := extend(l.name, 3*time.Second); err != nil {
				l.held.Store(false)
				l.onLost()
				return
			}
			time.Sleep(time.Second)
		}
	}()
	return l
}

// Held reports whether the last renewal succeeded.
func (l *CallbackLease) Held() bool { return l.held.Load() }

// BlindLease clears held on a failed renewal, but no method reads it: no
// loss signal a holder could read is in sight, no fact.
type BlindLease struct {
	name string
	held atomic.Bool
	stop chan struct{}
}

// AcquireBlind takes the lease and renews it on a ticker.
func AcquireBlind(name string) *BlindLease {
	l := &BlindLease{name: name, stop: make(chan struct{})}
	l.held.Store(true)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				if err := extend(l.name, 3*time.Second); err != nil {
					log.Printf("renew %s: %v", l.name, err)
					l.held.Store(false)
				}
			}
		}
	}()
	return l
}

// Release stops the renewals.
func (l *BlindLease) Release() { close(l.stop) }
