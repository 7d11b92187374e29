package elector_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// jumpClock is a monotonic clock that can jump forward without firing the
// timers made from it on time: as after SIGCONT, the clock has moved on but
// the goroutines waiting on timers have not run yet.
type jumpClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *jumpClock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

func (c *jumpClock) NewTimer(d time.Duration) elector.Timer { return bubbleTimer{time.NewTimer(d)} }

type bubbleTimer struct{ t *time.Timer }

func (b bubbleTimer) C() <-chan time.Time { return b.t.C }
func (b bubbleTimer) Stop() bool          { return b.t.Stop() }

// TestResumedLeaderSeesDeadlineAtOnce: a leader whose clock passed the
// deadline while it was frozen sees its context ended on the first check
// after resuming, before the watchdog goroutine runs. Before issue 17,
// ctx.Err() was nil until the watchdog's timer fired, and a write sent in
// that moment carried the old token.
func TestResumedLeaderSeesDeadlineAtOnce(t *testing.T) {
	for _, check := range []string{"Err", "Done", "Valid"} {
		t.Run(check, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := &jumpClock{}
				var ev events
				c := newCandidate(t, memstore.New(), "a", &ev, elector.WithClock(clk))
				resumed := make(chan struct{})
				seen := make(chan bool, 1)
				var cause error
				stop := runBg(t, c, func(ctx context.Context, l elector.Lease) error {
					if !l.Valid() {
						t.Error("Valid() = false at the start of the term")
					}
					select {
					case <-resumed:
					case <-ctx.Done():
						return nil // a later term
					}
					var live bool
					switch check {
					case "Err":
						live = ctx.Err() == nil
					case "Done":
						select {
						case <-ctx.Done():
						default:
							live = true
						}
					case "Valid":
						live = l.Valid()
					}
					cause = context.Cause(ctx)
					seen <- live
					<-ctx.Done()
					return nil
				})
				defer stop()
				for len(ev.of(elector.Acquired)) == 0 {
					synctest.Wait()
				}
				clk.jump(testTiming.SafeWindow() + time.Second) // frozen past the deadline
				close(resumed)
				if <-seen {
					t.Fatalf("%s reported the term live on resuming %v past its deadline", check, time.Second)
				}
				if check != "Valid" && !errors.Is(cause, elector.ErrDeadlinePassed) {
					t.Errorf("cause %v; want ErrDeadlinePassed", cause)
				}
				synctest.Wait()
				if lost := ev.of(elector.Lost); len(lost) != 1 {
					t.Errorf("lost events %+v; want one", lost)
				}
				stop()
			})
		})
	}
}
