// Package lostcancel holds leasers that start the leader's work on a
// per-term context and block in a loop renewing the lease: whether the
// work is cancelled once that loop returns.
package lostcancel

import (
	"context"
	"errors"
	"log"
	"time"
)

// Lease is a lock with an expiry, renewed while it is held.
type Lease interface {
	Acquire(ctx context.Context) (bool, error) // want Acquire:`pacedRenew\(lostcancel.go:\d+\)`
	Renew(ctx context.Context) error           // want Renew:`pacedRenew\(lostcancel.go:\d+\)`
	Release(ctx context.Context) error
}

// Other is a second lock type.
type Other interface {
	Acquire(ctx context.Context) (bool, error)
	Release(ctx context.Context) error
}

var errFenced = errors.New("fenced")

// Leaser runs work while it holds its lease.
type Leaser struct {
	lease      Lease
	other      Other
	renewEvery time.Duration
	retry      time.Duration
	errs       chan error
	lost       chan struct{}
	stopWork   context.CancelFunc
	onElected  func(context.Context)
	failures   int
	leading    bool
	logf       func(ctx context.Context, format string, args ...any)
}

// note hands a failure other than fencing to the supervisor.
func (l *Leaser) note(err error) {
	if err != nil && !errors.Is(err, errFenced) {
		l.errs <- err
	}
}

func (l *Leaser) work(ctx context.Context) { <-ctx.Done() }

// hold renews until a renewal fails or ctx ends.
func (l *Leaser) hold(ctx context.Context) error { // want hold:"renews via \\(lostcancel.Lease\\).Renew"
	t := time.NewTicker(l.renewEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := l.lease.Renew(ctx); err != nil {
				return err
			}
		}
	}
}

// holdAndSignal closes lost itself when a renewal fails: the work stops.
func (l *Leaser) holdAndSignal(ctx context.Context) error {
	for {
		time.Sleep(l.renewEvery)
		if err := l.lease.Renew(ctx); err != nil {
			close(l.lost)
			return err
		}
	}
}

// holdLogged never returns on a failure: it logs and renews again.
func (l *Leaser) holdLogged(ctx context.Context) error { // want holdLogged:"renews via \\(lostcancel.Lease\\).Renew"
	for ctx.Err() == nil {
		time.Sleep(l.renewEvery)
		if err := l.lease.Renew(ctx); err != nil {
			l.failures++
		}
	}
	return ctx.Err()
}

// renewOnce renews once: no loop, no blocking maintenance.
func (l *Leaser) renewOnce(ctx context.Context) error { // want renewOnce:"renews via \\(lostcancel.Lease\\).Renew"
	return l.lease.Renew(ctx)
}

// renewWhenReady waits, in a loop that may return, for the store, then
// renews once: the renewal itself is in no loop.
func (l *Leaser) renewWhenReady(ctx context.Context) error { // want renewWhenReady:"renews via \\(lostcancel.Lease\\).Renew"
	for i := 0; i < 3; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(l.retry)
	}
	return l.lease.Renew(ctx)
}

// Run is the shape reported: a deferred cancel inside the loop, and a
// wait for the next attempt after the lease is lost.
func (l *Leaser) Run(ctx context.Context) {
	for {
		ok, err := l.lease.Acquire(ctx)
		if err != nil {
			return
		}
		if ok {
			workCtx, stop := context.WithCancel(ctx)
			defer stop()
			go l.work(workCtx)
			err = l.hold(workCtx) // want `hold returns when renewing the lease fails, but on a path from its return the function goes on without cancelling`
			if err != nil && !errors.Is(err, errFenced) {
				l.errs <- err
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(l.retry):
		}
	}
}

// Cancelling cancels the term as soon as hold returns.
func (l *Leaser) Cancelling(ctx context.Context) {
	for {
		ok, err := l.lease.Acquire(ctx)
		if err != nil {
			return
		}
		if ok {
			workCtx, stop := context.WithCancel(ctx)
			go l.work(workCtx)
			err = l.hold(workCtx)
			stop()
			l.note(err)
		}
		time.Sleep(l.retry)
	}
}

// HalfCancelling cancels only when the lease was fenced: the other
// failures go round again with the work running.
func (l *Leaser) HalfCancelling(ctx context.Context) {
	for {
		ok, err := l.lease.Acquire(ctx)
		if err != nil {
			return
		}
		if ok {
			workCtx, stop := context.WithTimeout(ctx, time.Hour)
			go l.work(workCtx)
			err = l.hold(workCtx) // want `hold returns when renewing`
			if errors.Is(err, errFenced) {
				stop()
			}
		}
		time.Sleep(l.retry)
	}
}

// Returning hands the loss to its caller: the deferred cancel runs.
func (l *Leaser) Returning(ctx context.Context) error { // want Returning:"renews via \\(lostcancel.Leaser\\).hold"
	for {
		ok, err := l.lease.Acquire(ctx)
		if err != nil {
			return err
		}
		if !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		return l.hold(workCtx)
	}
}

// ReturningFenced returns only when fenced; another failure loops.
func (l *Leaser) ReturningFenced(ctx context.Context) error { // want ReturningFenced:"renews via \\(lostcancel.Leaser\\).hold"
	for {
		ok, err := l.lease.Acquire(ctx)
		if err != nil {
			return err
		}
		if !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		if err := l.hold(workCtx); errors.Is(err, errFenced) { // want `hold returns when renewing`
			return err
		}
	}
}

// CancelOnFailure cancels when hold fails; a nil return means the term's
// context already ended.
func (l *Leaser) CancelOnFailure(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		go l.work(workCtx)
		if err := l.hold(workCtx); err != nil {
			stop()
			l.note(err)
		}
		time.Sleep(l.retry)
	}
}

// CancelOnSuccess cancels on the wrong side of the test.
func (l *Leaser) CancelOnSuccess(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		go l.work(workCtx)
		if err := l.hold(workCtx); err == nil { // want `hold returns when renewing`
			stop()
		}
		time.Sleep(l.retry)
	}
}

// ParentWork starts the work on the loop's context, not the term's: the
// term's context guards nothing (other reasons may make it wrong).
func (l *Leaser) ParentWork(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		holdCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(ctx)
		l.note(l.hold(holdCtx))
		time.Sleep(l.retry)
	}
}

// Callback hands the term's context to a callback that starts the work.
func (l *Leaser) Callback(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		l.onElected(workCtx)
		l.note(l.hold(workCtx)) // want `hold returns when renewing`
		time.Sleep(l.retry)
	}
}

// Kept stores the cancel in a field: another method may call it.
func (l *Leaser) Kept(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		l.stopWork = stop
		go l.work(workCtx)
		l.note(l.hold(workCtx))
		time.Sleep(l.retry)
	}
}

// Signalled: the maintenance closes lost itself when the lease is lost.
func (l *Leaser) Signalled(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.holdAndSignal(workCtx))
		time.Sleep(l.retry)
	}
}

// Handing sends the loss to a supervisor before going round.
func (l *Leaser) Handing(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		if err := l.hold(workCtx); err != nil {
			l.errs <- err
		}
		time.Sleep(l.retry)
	}
}

// Logged: holdLogged never returns on a failure.
func (l *Leaser) Logged(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.holdLogged(workCtx))
		time.Sleep(l.retry)
	}
}

// Once: renewOnce is no maintenance loop.
func (l *Leaser) Once(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.renewOnce(workCtx))
		time.Sleep(l.retry)
	}
}

// OtherLock acquires a lock of another type than the one hold renews.
func (l *Leaser) OtherLock(ctx context.Context) {
	for {
		if ok, err := l.other.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.hold(workCtx))
		time.Sleep(l.retry)
	}
}

// Draining waits a bounded time and returns: the deferred cancel runs.
func (l *Leaser) Draining(ctx context.Context) error { // want Draining:"renews via \\(lostcancel.Leaser\\).hold"
	if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
		return err
	}
	workCtx, stop := context.WithCancel(ctx)
	defer stop()
	go l.work(workCtx)
	err := l.hold(workCtx)
	t := time.NewTimer(l.retry)
	defer t.Stop()
	select {
	case <-t.C:
	case <-time.After(2 * l.retry):
	}
	return err
}

// Parked waits for the process to end after the loss, the work running.
func (l *Leaser) Parked(ctx context.Context) error { // want Parked:"renews via \\(lostcancel.Leaser\\).hold"
	if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
		return err
	}
	workCtx, stop := context.WithCancel(ctx)
	defer stop()
	go l.work(workCtx)
	err := l.hold(workCtx) // want `hold returns when renewing`
	<-ctx.Done()
	return err
}

// Closure runs the work in a literal capturing the term's context and
// cancel; the loop goes straight back to acquire.
func (l *Leaser) Closure(ctx context.Context, jobs []func(context.Context)) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			defer stop()
			for _, j := range jobs {
				j(workCtx)
			}
		}()
		err := l.hold(workCtx) // want `hold returns when renewing`
		log.Printf("lease lost: %v", err)
	}
}

// OnceAfterWait: renewWhenReady is no maintenance loop either.
func (l *Leaser) OnceAfterWait(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.renewWhenReady(workCtx))
		time.Sleep(l.retry)
	}
}

// NoAcquire renews a lease this function never acquires (a caller's).
func (l *Leaser) NoAcquire(ctx context.Context) {
	for {
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		go l.work(workCtx)
		l.note(l.hold(workCtx))
		time.Sleep(l.retry)
	}
}

// Pausing waits once for a timer and returns.
func (l *Leaser) Pausing(ctx context.Context) error { // want Pausing:"renews via \\(lostcancel.Leaser\\).hold"
	if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
		return err
	}
	workCtx, stop := context.WithCancel(ctx)
	defer stop()
	go l.work(workCtx)
	err := l.hold(workCtx)
	<-time.After(l.retry)
	return err
}

// Flagged clears a leadership flag the work reads when hold returns.
func (l *Leaser) Flagged(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		l.leading = true
		go l.work(workCtx)
		l.note(l.hold(workCtx))
		l.leading = false
		time.Sleep(l.retry)
	}
}

// holdFlagging clears the flag itself when a renewal fails.
func (l *Leaser) holdFlagging(ctx context.Context) error { // want holdFlagging:"renews via \\(lostcancel.Lease\\).Renew"
	for {
		time.Sleep(l.renewEvery)
		if err := l.lease.Renew(ctx); err != nil {
			l.leading = false
			return err
		}
	}
}

// FlaggedInside: holdFlagging tells the work through the flag.
func (l *Leaser) FlaggedInside(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		workCtx, stop := context.WithCancel(ctx)
		defer stop()
		l.leading = true
		go l.work(workCtx)
		l.note(l.holdFlagging(workCtx))
		time.Sleep(l.retry)
	}
}

// Traced hands the term's context to a logger, and starts the work on
// the loop's.
func (l *Leaser) Traced(ctx context.Context) {
	for {
		if ok, err := l.lease.Acquire(ctx); err != nil || !ok {
			time.Sleep(l.retry)
			continue
		}
		holdCtx, stop := context.WithCancel(ctx)
		defer stop()
		l.logf(holdCtx, "leading")
		go l.work(ctx)
		l.note(l.hold(holdCtx))
		time.Sleep(l.retry)
	}
}
