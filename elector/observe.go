package elector

import (
	"context"
	"math/rand/v2"
	"time"
)

// Observe calls fn with the lease's record whenever its term or held state
// changes, until ctx ends, without competing: a candidate that never calls
// Run is an observer (for a status page, say). It wakes on the store's watch
// if it has one and otherwise polls every jittered RetryInterval, both on the
// candidate's clock (WithClock); read errors are retried at the next poll.
// It may run beside Run. It returns ctx.Err().
func (c *Candidate) Observe(ctx context.Context, fn func(Record)) error {
	var (
		last  Record
		first = true
		wake  <-chan struct{}
		// rewatch is false for one poll after a watch closed, so a watch
		// that keeps breaking cannot spin this loop.
		rewatch = true
		// Run's c.rnd belongs to Run's goroutine.
		rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	)
	interval := c.timing.RetryInterval
	for {
		if c.watcher != nil && wake == nil && rewatch {
			if ch, err := c.watcher.Watch(ctx, c.name); err == nil {
				wake = ch
			}
		}
		if rec, err := c.store.Read(ctx, c.name); err == nil {
			if first || rec.Term != last.Term || rec.Held != last.Held {
				fn(rec)
			}
			last, first = rec, false
		}
		rewatch = true
		t := c.clock.NewTimer(interval + time.Duration(rnd.Float64()*jitterFraction*float64(interval)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		case _, ok := <-wake:
			t.Stop()
			if !ok {
				wake, rewatch = nil, false
			}
		}
	}
}
