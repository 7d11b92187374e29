package elector_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// TestResignWaitsForRelease: Resign(ctx) returns once the work has returned
// and the term is released, so a caller can hand over and then exit; with a
// shorter ctx it returns ctx's error and the resignation still completes.
func TestResignWaitsForRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var ev events
		c := newCandidate(t, s, "a", &ev)
		const stopTakes = 700 * time.Millisecond
		started := make(chan elector.Lease, 2)
		stop := runBg(t, c, func(ctx context.Context, l elector.Lease) error {
			started <- l
			<-ctx.Done()
			time.Sleep(stopTakes)
			return nil
		})
		defer stop()
		<-started
		begin := time.Now()
		if err := c.Resign(context.Background()); err != nil {
			t.Fatalf("Resign: %v", err)
		}
		if took := time.Since(begin); took < stopTakes {
			t.Errorf("Resign returned after %v, before the work stopped (%v)", took, stopTakes)
		}
		if rec, _ := s.Read(context.Background(), "lease"); rec.Held {
			t.Errorf("lease still held when Resign returned: %+v", rec)
		}
		synctest.Wait() // events reach the callback on their own goroutine
		if n := len(ev.of(elector.Released)); n != 1 {
			t.Errorf("%d Released events after Resign returned; want 1", n)
		}

		<-started // competes again after the resign pause
		short, cancel := context.WithTimeout(context.Background(), stopTakes/2)
		defer cancel()
		if err := c.Resign(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Resign with a context shorter than the stop: %v; want DeadlineExceeded", err)
		}
		time.Sleep(stopTakes)
		if n := len(ev.of(elector.Released)); n != 2 {
			t.Errorf("%d Released events after the second resign; want 2 (it goes on after ctx ends)", n)
		}
		stop()
	})
}

// TestShutdownCause: the work's context says a shutdown ended it
// (ErrShutdown) and why Run's context ended (its cause). Before issue 17 the
// cause was plain context.Canceled, the same as for any parent cancellation.
func TestShutdownCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ev events
		c := newCandidate(t, memstore.New(), "a", &ev)
		rec := newRecorder()
		why := errors.New("deploy")
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx, rec.work) }()
		<-rec.start
		cancel(why)
		<-done
		terms := rec.all()
		if len(terms) != 1 || !errors.Is(terms[0].cause, elector.ErrShutdown) || !errors.Is(terms[0].cause, why) {
			t.Fatalf("work's cause %v; want ErrShutdown wrapping Run's cause %v", terms[0].cause, why)
		}
	})
}
