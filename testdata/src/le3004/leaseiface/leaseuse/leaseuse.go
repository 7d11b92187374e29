// Package leaseuse takes leases through leaseapi's contract: directly, and
// through the task's wrappers.
package leaseuse

import (
	"context"
	"errors"
	"net/http"
	"time"

	"le3004/leaseiface/keeper"
	"le3004/leaseiface/leaseapi"
)

const taskLeaseTTL = 4 * time.Second

type Runner struct {
	lease   leaseapi.Lease
	gate    leaseapi.Gate
	slot    leaseapi.Slot
	ttl     time.Duration
	execute func(ctx context.Context, t *leaseapi.Task) error
	work    func(ctx context.Context) error
	client  *http.Client
}

// Sync retries the wrapper's acquire until it holds the lease, then runs
// the caller's executor under it, released by a deferred closure.
func (r *Runner) Sync(ctx context.Context, t *leaseapi.Task) error {
	var held bool
	for !held {
		err := t.TakeLease(ctx, taskLeaseTTL) // want `t.TakeLease takes the leaseapi.Lease lease t \(through TakeLease\) with a fixed TTL of 4s and holds it around work of unbounded duration \(a call of r.runTask, which runs the callback r.execute, line \d+\) without ever calling its Extend`
		if errors.Is(err, leaseapi.ErrHeld) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
		held = true
	}
	defer func() {
		_ = t.ReleaseLease(ctx)
	}()
	return r.runTask(ctx, t)
}

func (r *Runner) runTask(ctx context.Context, t *leaseapi.Task) error {
	return r.execute(ctx, t)
}

// Fetch takes the interface's lease directly around a loop of requests.
func (r *Runner) Fetch(ctx context.Context, urls []string) error {
	if err := r.lease.Acquire(ctx, 10*time.Second); err != nil { // want `r.lease.Acquire takes the leaseapi.Lease lease r.lease with a fixed TTL of 10s and holds it around work of unbounded duration \(a loop over urls calling r.client.Get`
		return err
	}
	defer r.lease.Release(ctx)
	for _, u := range urls {
		resp, err := r.client.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}

// Hold uses the function wrapper.
func (r *Runner) Hold(ctx context.Context, t *leaseapi.Task) error {
	if err := leaseapi.Hold(r.lease, ctx, taskLeaseTTL); err != nil { // want `leaseapi.Hold takes the leaseapi.Lease lease r.lease \(through Hold\) with a fixed TTL of 4s`
		return err
	}
	defer r.lease.Release(ctx)
	return r.execute(ctx, t)
}

// SyncRenewed extends the lease through the wrapper from a goroutine while
// the executor runs: renewed, silent.
func (r *Runner) SyncRenewed(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		tick := time.NewTicker(taskLeaseTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if t.ExtendLease(ctx, taskLeaseTTL) != nil {
					cancel()
				}
			}
		}
	}()
	return r.work(ctx)
}

// SyncTicking is SyncRenewed's twin: its goroutine only watches the clock.
func (r *Runner) SyncTicking(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil { // want `t.TakeLease takes the leaseapi.Lease lease t \(through TakeLease\) with a fixed TTL of 4s and holds it around work of unbounded duration \(the callback r.work`
		return err
	}
	defer t.ReleaseLease(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		tick := time.NewTicker(taskLeaseTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return r.work(ctx)
}

// every runs fn every d until ctx ends.
func (r *Runner) every(ctx context.Context, d time.Duration, fn func()) {
	go func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				fn()
			}
		}
	}()
}

// SyncEvery extends the lease through the wrapper from a ticker callback:
// renewed, silent.
func (r *Runner) SyncEvery(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	r.every(ctx, taskLeaseTTL/3, func() { _ = t.ExtendLease(ctx, taskLeaseTTL) })
	return r.work(ctx)
}

// SyncEveryIdle is SyncEvery's twin: the ticker callback renews nothing.
func (r *Runner) SyncEveryIdle(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil { // want `t.TakeLease takes the leaseapi.Lease lease t \(through TakeLease\) with a fixed TTL of 4s and holds it around work of unbounded duration \(the callback r.work`
		return err
	}
	defer t.ReleaseLease(ctx)
	r.every(ctx, taskLeaseTTL/3, func() { _ = t.ID })
	return r.work(ctx)
}

// Batch owns a slot of its own; no function of this package updates its
// lease (Runner's renewal below is of another field).
type Batch struct {
	slot   leaseapi.Slot
	client *http.Client
}

// Nightly holds the slot around a loop of requests, never updating its
// lease.
func (r *Batch) Nightly(ctx context.Context, urls []string) error {
	ok, err := r.slot.TryLock(ctx, "nightly", 20*time.Second) // want `r.slot.TryLock takes the leaseapi.Slot lease r.slot with a fixed TTL of 20s and holds it around work of unbounded duration \(a loop over urls calling r.client.Get, line \d+\) without ever calling its UpdateLease`
	if err != nil || !ok {
		return err
	}
	defer r.slot.Unlock(ctx, "nightly")
	for _, u := range urls {
		if _, err := r.client.Get(u); err != nil {
			return err
		}
	}
	return nil
}

// NightlyUpdated is Nightly with a heartbeat that updates the lease:
// renewed, silent.
func (r *Runner) NightlyUpdated(ctx context.Context, urls []string) error {
	ok, err := r.slot.TryLock(ctx, "nightly", 20*time.Second)
	if err != nil || !ok {
		return err
	}
	defer r.slot.Unlock(ctx, "nightly")
	r.every(ctx, 5*time.Second, func() { _ = r.slot.UpdateLease(ctx, "nightly", 20*time.Second) })
	for _, u := range urls {
		if _, err := r.client.Get(u); err != nil {
			return err
		}
	}
	return nil
}

// SyncKept hands the task to another package's keeper: it may extend the
// lease (it does), silent.
func (r *Runner) SyncKept(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	go keeper.Keep(ctx, t, time.Second)
	return r.work(ctx)
}

// Gated waits at most 10 s for the gate, which has no renewal: a wait
// timeout, not a time to live; silent.
func (r *Runner) Gated(ctx context.Context, t *leaseapi.Task) error {
	if err := r.gate.Acquire(ctx, 10*time.Second); err != nil {
		return err
	}
	defer r.gate.Release(ctx)
	return r.work(ctx)
}

// Leased is Gated's twin through the interface that has a renewal.
func (r *Runner) Leased(ctx context.Context, t *leaseapi.Task) error {
	if err := r.lease.Acquire(ctx, 10*time.Second); err != nil { // want `r.lease.Acquire takes the leaseapi.Lease lease r.lease with a fixed TTL of 10s and holds it around work of unbounded duration \(the callback r.work`
		return err
	}
	defer r.lease.Release(ctx)
	return r.work(ctx)
}

// Configured takes the lease for a configured TTL: not a constant, not
// judged.
func (r *Runner) Configured(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, r.ttl); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	return r.work(ctx)
}

// Constant is Configured's twin with a constant TTL.
func (r *Runner) Constant(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, 30*time.Second); err != nil { // want `t.TakeLease takes the leaseapi.Lease lease t \(through TakeLease\) with a fixed TTL of 30s`
		return err
	}
	defer t.ReleaseLease(ctx)
	return r.work(ctx)
}

// Bounded gives the executor a deadline shorter than the TTL: it ends
// before the lease can expire, silent.
func (r *Runner) Bounded(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, 10*time.Second); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return r.work(cctx)
}

// Unbounded is Bounded's twin: the deadline is longer than the TTL.
func (r *Runner) Unbounded(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, 10*time.Second); err != nil { // want `t.TakeLease takes the leaseapi.Lease lease t \(through TakeLease\) with a fixed TTL of 10s`
		return err
	}
	defer t.ReleaseLease(ctx)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return r.work(cctx)
}

// Scoped runs the executor through WithLease, which acquires and releases
// around it: WithLease is no acquire of this function, silent.
func (r *Runner) Scoped(ctx context.Context, t *leaseapi.Task) error {
	if err := leaseapi.WithLease(ctx, r.lease, taskLeaseTTL, func(ctx context.Context) error { return nil }); err != nil {
		return err
	}
	return r.execute(ctx, t)
}

// Handed passes the task, and with it the lease, to the caller's executor,
// which may extend it: code the analysis cannot see, silent. (Sync hands it
// on from a package function, judged by what that function does.)
func (r *Runner) Handed(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil {
		return err
	}
	defer t.ReleaseLease(ctx)
	return r.execute(ctx, t)
}

// ReleasedFirst gives the lease back before the executor runs: silent.
func (r *Runner) ReleasedFirst(ctx context.Context, t *leaseapi.Task) error {
	if err := t.TakeLease(ctx, taskLeaseTTL); err != nil {
		return err
	}
	if err := t.ReleaseLease(ctx); err != nil {
		return err
	}
	return r.work(ctx)
}
