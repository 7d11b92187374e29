package elector_test

import (
	"context"
	"errors"
	"strings"
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
				// Only the first term reports: a later term (the candidate
				// leads again after the expiry) must not overwrite what the
				// first one saw, so liveness and cause travel together.
				type observation struct {
					live  bool
					cause error
				}
				started, resumed := make(chan struct{}), make(chan struct{})
				seen := make(chan observation, 1)
				var first sync.Once
				stop := runBg(t, c, func(ctx context.Context, l elector.Lease) error {
					isFirst := false
					first.Do(func() { isFirst = true })
					if !isFirst {
						<-ctx.Done()
						return nil
					}
					if !l.Valid() {
						t.Error("Valid() = false at the start of the term")
					}
					close(started)
					select {
					case <-resumed:
					case <-ctx.Done():
						return nil // the term ended before the freeze
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
					seen <- observation{live, context.Cause(ctx)}
					<-ctx.Done()
					return nil
				})
				defer stop()
				// The work must be blocked in its select before the clock
				// jumps, or its first ctx.Done() would already end the term.
				<-started
				synctest.Wait()
				clk.jump(testTiming.SafeWindow() + time.Second) // frozen past the deadline
				close(resumed)
				got := <-seen
				if got.live {
					t.Fatalf("%s reported the term live on resuming %v past its deadline", check, time.Second)
				}
				if check != "Valid" && !errors.Is(got.cause, elector.ErrDeadlinePassed) {
					t.Errorf("cause %v; want ErrDeadlinePassed", got.cause)
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

// TestFrozenLeaderToldFromSlowWork: a leader frozen past its hard deadline
// whose work returns a millisecond after resuming is reported as Frozen (a
// warning), with Lost saying the deadline was noticed late; work that is
// slow to stop is still WorkOverran (an error). Before issue 17 both were
// WorkOverran, "another leader may be running", at error level.
func TestFrozenLeaderToldFromSlowWork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		freeze time.Duration // clock jump right after the acquire
		stop   time.Duration // how long the work takes to return after ctx ends
		want   elector.EventKind
	}{
		{"frozen", testTiming.SafeWindow() + testTiming.StopBudget + 2*time.Second, time.Millisecond, elector.Frozen},
		{"slow-work", 0, 3 * testTiming.StopBudget, elector.WorkOverran},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := &jumpClock{}
				fs := &faultStore{Store: memstore.New(), renewErr: errors.New("network down")}
				var ev events
				c := newCandidate(t, fs, "a", &ev, elector.WithClock(clk))
				first := true
				stop := runBg(t, c, func(ctx context.Context, l elector.Lease) error {
					<-ctx.Done()
					if first {
						first = false
						time.Sleep(tc.stop)
					}
					return nil
				})
				defer stop()
				for len(ev.of(elector.Acquired)) == 0 {
					synctest.Wait()
				}
				clk.jump(tc.freeze)
				time.Sleep(testTiming.LeaseDuration + 5*time.Second)
				frozen, over := ev.of(elector.Frozen), ev.of(elector.WorkOverran)
				switch tc.want {
				case elector.Frozen:
					if len(frozen) != 1 || len(over) != 0 {
						t.Fatalf("%d Frozen, %d WorkOverran events (%+v); want one Frozen, no WorkOverran", len(frozen), len(over), ev.all)
					}
					if lost := ev.of(elector.Lost); len(lost) == 0 || !strings.Contains(lost[0].Reason, "frozen") {
						t.Errorf("Lost events %+v; want the first to say the process was frozen", lost)
					}
				case elector.WorkOverran:
					if len(frozen) != 0 || len(over) != 1 {
						t.Fatalf("%d Frozen, %d WorkOverran events; want no Frozen, one WorkOverran", len(frozen), len(over))
					}
				}
				stop()
			})
		})
	}
}

// TestShutdownWithOverrunningWork: Run's error says when it returns with the
// work still running. Shutting down, Run waits for the work until its hard
// deadline; if the work ignores its context that long, Run reports
// WorkOverran and returns an error wrapping context.Canceled and
// ErrWorkRunning, the term unreleased. Before issue 17 it returned plain
// context.Canceled, while its doc promised the last term had been released.
func TestShutdownWithOverrunningWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var ev events
		c := newCandidate(t, s, "a", &ev)
		started, release := make(chan elector.Lease, 1), make(chan struct{})
		var running sync.WaitGroup
		running.Add(1)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
				defer running.Done()
				started <- l
				<-ctx.Done()
				<-release // ignores its context
				return nil
			})
		}()
		l := <-started
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) || !errors.Is(err, elector.ErrWorkRunning) {
			t.Fatalf("Run returned %v with the work still running; want context.Canceled and ErrWorkRunning", err)
		}
		if n := len(ev.of(elector.WorkOverran)); n != 1 {
			t.Errorf("%d WorkOverran events; want 1", n)
		}
		if rec, _ := s.Read(context.Background(), "lease"); !rec.Held || rec.Token != l.Token() {
			t.Errorf("record %+v; want the abandoned term still in the store (not released under running work)", rec)
		}
		close(release)
		running.Wait()

		// The graceful case returns plain ctx.Err() after releasing.
		c2 := newCandidate(t, s, "b", &ev)
		rec := newRecorder()
		stop := runBg(t, c2, rec.work)
		<-rec.start
		stop() // fails the test unless Run returned context.Canceled
		if r, _ := s.Read(context.Background(), "lease"); r.Held {
			t.Errorf("record %+v after a graceful shutdown; want released", r)
		}
	})
}
