package elector_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// manualClock is a clock that moves only when advance is called, firing the
// timers made from it that are then due.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
	// done is set once the timer fired or was stopped; guarded by the
	// clock's mu.
	done bool
	clk  *manualClock
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) NewTimer(d time.Duration) elector.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{at: c.now.Add(d), ch: make(chan time.Time, 1), clk: c}
	c.timers = append(c.timers, t)
	c.fireLocked()
	return t
}

// pending is how many timers wait to fire.
func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fireLocked()
}

func (c *manualClock) fireLocked() {
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			t.ch <- c.now
		}
	}
}

func (t *manualTimer) C() <-chan time.Time { return t.ch }

func (t *manualTimer) Stop() bool {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

func TestObserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		observer, err := elector.New(s, "lease", elector.WithTiming(testTiming))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var seen []elector.Record
		snapshot := func() []elector.Record {
			mu.Lock()
			defer mu.Unlock()
			return append([]elector.Record(nil), seen...)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() {
			done <- observer.Observe(ctx, func(r elector.Record) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, r)
			})
		}()
		synctest.Wait()
		a, _ := s.Acquire(ctx, "lease", "a", 3*time.Second)
		synctest.Wait() // the watch wakes the observer at once
		got := snapshot()
		if len(got) != 2 || got[1].Term != a || !got[1].Held {
			t.Fatalf("seen %+v after acquire", got)
		}
		time.Sleep(5 * time.Second) // expiry is noticed by polling
		got = snapshot()
		if len(got) != 3 || got[2].Held {
			t.Fatalf("seen %+v after expiry", got)
		}
		rec, err := s.Read(ctx, "lease")
		if err != nil || rec.Term != a || rec.Held {
			t.Errorf("Read = %+v, %v", rec, err)
		}
		cancel()
		if err := <-done; err == nil {
			t.Error("Observe returned nil after its context ended")
		}
	})
}

// TestObserveFollowsCandidateClock: Observe polls on the clock given with
// WithClock. Before issue 17 it was a function that took no options and
// polled on the runtime's timers, so a test or simulation driving virtual
// time could not make it poll. Real time is used here on purpose: the
// retry interval is 8 minutes, so only the manual clock can make the poll
// happen within the test's few seconds.
func TestObserveFollowsCandidateClock(t *testing.T) {
	tm := elector.Timing{LeaseDuration: time.Hour, RenewInterval: 20 * time.Minute, RetryInterval: 8 * time.Minute,
		DriftBound: 2 * time.Minute, StopBudget: 4 * time.Minute}
	s := memstore.New()
	clk := &manualClock{now: time.Now()}
	observer, err := elector.New(pollOnly{s}, "lease", elector.WithTiming(tm), elector.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan elector.Record, 10)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = observer.Observe(ctx, func(r elector.Record) { seen <- r }) }()
	if r := <-seen; r.Held {
		t.Fatalf("first record %+v; want the lease free", r)
	}
	a, err := s.Acquire(ctx, "lease", "a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// Without a watch nothing wakes the observer before its next poll.
	select {
	case r := <-seen:
		t.Fatalf("saw %+v before the clock moved", r)
	case <-time.After(50 * time.Millisecond):
	}
	for start := time.Now(); clk.pending() == 0; time.Sleep(time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the observer set no timer on its candidate's clock")
		}
	}
	clk.advance(tm.RetryInterval * 5 / 4) // past the longest jittered poll
	select {
	case r := <-seen:
		if r.Term != a || !r.Held {
			t.Fatalf("saw %+v; want %+v held", r, a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the observer did not poll when its clock passed the retry interval")
	}
}
