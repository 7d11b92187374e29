// Package claimed: a job runner that keeps the visibility timeout of the
// message it claimed from moving past while the job runs. The extension
// is keyed by the claimed message's ID, so it touches only what this
// replica won; a message read without a claim is every replica's.
package claimed

import (
	"context"
	"time"

	"le1001/claimed/msgqueue"
)

type Runner struct {
	q      *msgqueue.Queue
	extend time.Duration
}

// Negative: the extender is a closure over the message Receive claimed.
func (r *Runner) runOne(ctx context.Context, job func(context.Context, msgqueue.Message)) {
	m, err := r.q.Receive(ctx)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(r.extend * 4 / 5)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.q.Extend(ctx, m.ID, r.extend)
			}
		}
	}()
	job(ctx, m)
	close(done)
}

// Positive twin: the same extender over a message only peeked at; every
// replica extends the same message.
func (r *Runner) runPeeked(ctx context.Context, job func(context.Context, msgqueue.Message)) {
	m, err := r.q.Peek(ctx)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(r.extend * 4 / 5) // want `time.NewTicker runs loop body on every replica: it increments table messages \(via msgqueue.\(\*Queue\).Extend\); guarded by nothing`
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.q.Extend(ctx, m.ID, r.extend)
			}
		}
	}()
	job(ctx, m)
	close(done)
}

// Negative: the extender is a method whose only caller hands it the ID of
// the message Receive claimed.
func (r *Runner) runTwo(ctx context.Context, job func(context.Context, msgqueue.Message)) {
	m, err := r.q.Receive(ctx)
	if err != nil {
		return
	}
	stop := make(chan struct{})
	go r.keepClaimed(ctx, m.ID, stop)
	job(ctx, m)
	close(stop)
}

func (r *Runner) keepClaimed(ctx context.Context, id string, stop <-chan struct{}) {
	t := time.NewTicker(r.extend / 2)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.q.Extend(ctx, id, r.extend)
		}
	}
}

// Positive twin: one caller hands the extender a claimed ID, another a
// peeked one; the method's write is not coordinated by a claim.
func (r *Runner) runMixed(ctx context.Context) {
	if m, err := r.q.Receive(ctx); err == nil {
		go r.keepAny(ctx, m.ID, nil)
	}
	if m, err := r.q.Peek(ctx); err == nil {
		go r.keepAny(ctx, m.ID, nil)
	}
}

func (r *Runner) keepAny(ctx context.Context, id string, stop <-chan struct{}) {
	t := time.NewTicker(r.extend / 2) // want `time.NewTicker runs loop body on every replica: it increments table messages \(via msgqueue.\(\*Queue\).Extend\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.q.Extend(ctx, id, r.extend)
		}
	}
}

// Positive twin: the only call in sight hands the extender a claimed ID,
// but the method is exported: callers in other packages may pass any ID.
func (r *Runner) runExported(ctx context.Context) {
	if m, err := r.q.Receive(ctx); err == nil {
		go r.KeepExtending(ctx, m.ID, nil)
	}
}

func (r *Runner) KeepExtending(ctx context.Context, id string, stop <-chan struct{}) {
	t := time.NewTicker(r.extend / 2) // want `time.NewTicker runs loop body on every replica: it increments table messages \(via msgqueue.\(\*Queue\).Extend\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.q.Extend(ctx, id, r.extend)
		}
	}
}

// Positive twin: the direct call hands a claimed ID, but the method is
// also handed on as a callback, whose caller passes an ID of its own.
func (r *Runner) runCallback(ctx context.Context, every func(func(context.Context, string, <-chan struct{}))) {
	if m, err := r.q.Receive(ctx); err == nil {
		go r.keepCallback(ctx, m.ID, nil)
	}
	every(r.keepCallback)
}

func (r *Runner) keepCallback(ctx context.Context, id string, stop <-chan struct{}) {
	t := time.NewTicker(r.extend / 2) // want `time.NewTicker runs loop body on every replica: it increments table messages \(via msgqueue.\(\*Queue\).Extend\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.q.Extend(ctx, id, r.extend)
		}
	}
}
