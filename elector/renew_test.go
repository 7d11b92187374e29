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

// hangStore makes chosen renew requests hang, as on a half-open pooled
// connection: the request is never applied and no answer comes.
type hangStore struct {
	*memstore.Store
	mu    sync.Mutex
	calls []time.Time // when each Renew was sent
	// hangs reports whether renew number n (from 0) hangs.
	hangs func(n int) bool
	// ignoresCtx makes a hung request outlive its context, like go-redis
	// without ContextTimeoutEnabled: it fails only after a minute.
	ignoresCtx bool
}

func (h *hangStore) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	h.mu.Lock()
	n := len(h.calls)
	h.calls = append(h.calls, time.Now())
	h.mu.Unlock()
	if !h.hangs(n) {
		return h.Store.Renew(ctx, t, ttl)
	}
	if h.ignoresCtx {
		time.Sleep(time.Minute)
		return errors.New("hangStore: connection reset")
	}
	<-ctx.Done()
	return ctx.Err()
}

func (h *hangStore) renewCalls() []time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Time(nil), h.calls...)
}

// TestHungRenewDoesNotLoseTerm: one renew that hangs costs one retry
// interval, not the term, whether or not the client honours its context.
// Before issue 17 the hung renew's timeout was the whole remaining window,
// so the term was lost at the deadline with that one request outstanding.
func TestHungRenewDoesNotLoseTerm(t *testing.T) {
	for _, ignoresCtx := range []bool{false, true} {
		name := map[bool]string{false: "honours-ctx", true: "ignores-ctx"}[ignoresCtx]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hs := &hangStore{Store: memstore.New(), hangs: func(n int) bool { return n == 0 }, ignoresCtx: ignoresCtx}
				var ev events
				c := newCandidate(t, hs, "a", &ev)
				rec := newRecorder()
				stop := runBg(t, c, rec.work)
				defer stop()
				l := <-rec.start
				time.Sleep(3 * testTiming.LeaseDuration)
				if lost := ev.of(elector.Lost); len(lost) != 0 {
					t.Fatalf("one hung renew lost the term: %+v (renews sent at %v)", lost, hs.renewCalls())
				}
				if terms := rec.all(); len(terms) != 1 || terms[0].endedByCtx {
					t.Fatalf("terms %+v; want one, still running", terms)
				}
				calls := hs.renewCalls()
				if len(calls) < 2 {
					t.Fatalf("renews sent at %v; want a retry after the hung one", calls)
				}
				if gap := calls[1].Sub(calls[0]); gap > testTiming.RetryInterval*6/5 {
					t.Errorf("retry sent %v after the hung renew; want within the jittered retry interval %v", gap, testTiming.RetryInterval)
				}
				if cur, ok := c.Lease(); !ok || cur.Token() != l.Token() {
					t.Errorf("Lease() = %v, %v; want the first term", cur, ok)
				}
				stop()
				time.Sleep(time.Minute) // let a request that ignores its context end
			})
		})
	}
}

// TestEveryRenewHangsStillMakesPromisedAttempts: when every renew hangs the
// term is lost, but only after the attempts Timing.RenewAttempts promises
// were all sent. Before issue 17 one attempt was sent.
func TestEveryRenewHangsStillMakesPromisedAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hs := &hangStore{Store: memstore.New(), hangs: func(int) bool { return true }}
		var ev events
		c := newCandidate(t, hs, "a", &ev)
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		<-rec.start
		start := time.Now()
		time.Sleep(testTiming.SafeWindow() + time.Millisecond)
		synctest.Wait()
		terms := rec.all()
		if len(terms) == 0 || !errors.Is(terms[0].cause, elector.ErrDeadlinePassed) {
			t.Fatalf("terms %+v; want the first lost at the deadline", terms)
		}
		var before int
		for _, at := range hs.renewCalls() {
			if at.Sub(start) < testTiming.SafeWindow() {
				before++
			}
		}
		if want := testTiming.RenewAttempts(); before < want || want < elector.MinRenewAttempts {
			t.Errorf("%d renew attempts before the deadline; the timing promises %d (at least %d)", before, want, elector.MinRenewAttempts)
		}
		if n := len(ev.of(elector.RenewFailed)); n == 0 {
			t.Error("no RenewFailed event for attempts that timed out")
		}
		stop()
	})
}
