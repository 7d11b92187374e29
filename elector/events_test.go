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

// TestBlockingCallbackDoesNotDelayRenewals: an event callback stuck far past
// the lease (a log sink on a full pipe) costs no renewals; events beyond the
// queue are dropped and counted, and the callback still sees the first ones
// in order. Before issue 17 the callback ran on Run's goroutine: stuck on the
// Acquired event, no renew was sent and the term was lost at the deadline.
func TestBlockingCallbackDoesNotDelayRenewals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		unblock := make(chan struct{})
		var mu sync.Mutex
		var seen []elector.Event
		cb := func(e elector.Event) {
			mu.Lock()
			seen = append(seen, e)
			first := len(seen) == 1
			mu.Unlock()
			if first {
				<-unblock
			}
		}
		c, err := elector.New(s, "lease", elector.WithIdentity("a"), elector.WithTiming(testTiming), elector.WithEvents(cb))
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		l := <-rec.start
		// 300 renews every 5 s: more events than the queue holds.
		time.Sleep(300 * testTiming.RenewInterval)
		if terms := rec.all(); len(terms) != 1 || terms[0].endedByCtx {
			t.Fatalf("terms %+v; want the first still running while the callback is stuck", terms)
		}
		rec2, err := s.Read(context.Background(), "lease")
		if err != nil || !rec2.Held || rec2.Token != l.Token() || rec2.Remaining < testTiming.LeaseDuration-testTiming.RenewInterval {
			t.Fatalf("store record %+v (%v); want the term held and recently renewed", rec2, err)
		}
		if n := c.DroppedEvents(); n == 0 {
			t.Error("no events counted as dropped with the callback stuck for 300 renews")
		}
		close(unblock)
		synctest.Wait() // the callback catches up
		stop()          // Run returns after the callback saw the queued events
		mu.Lock()
		defer mu.Unlock()
		if len(seen) < 2 || seen[0].Kind != elector.Acquired || seen[1].Kind != elector.Renewed {
			t.Fatalf("callback saw %d events starting %+v; want Acquired then Renewed", len(seen), seen[:min(2, len(seen))])
		}
		if last := seen[len(seen)-1]; last.Kind != elector.Released {
			t.Errorf("last event delivered %v; want Released (queued at shutdown, after the callback caught up)", last.Kind)
		}
	})
}
