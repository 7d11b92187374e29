package elector

import (
	"context"
	"math/rand/v2"
	"time"
)

// Observe calls fn with the lease's record whenever its term or held state
// changes, until ctx ends, without competing. It wakes on the store's watch
// if it has one and otherwise polls every jittered interval; read errors
// are retried at the next poll. It returns ctx.Err().
func Observe(ctx context.Context, store Store, name string, interval time.Duration, fn func(Record)) error {
	var (
		last  Record
		first = true
		wake  <-chan struct{}
		// rewatch is false for one poll after a watch closed, so a watch
		// that keeps breaking cannot spin this loop.
		rewatch = true
	)
	watcher, _ := store.(Watcher)
	for {
		if watcher != nil && wake == nil && rewatch {
			if ch, err := watcher.Watch(ctx, name); err == nil {
				wake = ch
			}
		}
		if rec, err := store.Read(ctx, name); err == nil {
			if first || rec.Term != last.Term || rec.Held != last.Held {
				fn(rec)
			}
			last, first = rec, false
		}
		rewatch = true
		t := time.NewTimer(interval + time.Duration(rand.Float64()*jitterFraction*float64(interval)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		case _, ok := <-wake:
			t.Stop()
			if !ok {
				wake, rewatch = nil, false
			}
		}
	}
}
