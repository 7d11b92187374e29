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
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
)

// TestRunCarriesTheWorkError: the work's own error reaches Run's return,
// not only the Released event. Before issue 17, Run returned plain
// context.Canceled, so a work that failed on every term (a bad
// configuration, say) was silent unless events were logged.
func TestRunCarriesTheWorkError(t *testing.T) {
	errConfig := errors.New("billing: no such table invoices")
	errFlush := errors.New("billing: flush failed")
	for _, tc := range []struct {
		name string
		// work returns its error in its first term and behaves after.
		work func(ctx context.Context, first bool) error
		want error // nil: Run's error is ctx.Err() alone
	}{
		{"fails while leading", func(ctx context.Context, first bool) error {
			if first {
				return errConfig
			}
			<-ctx.Done()
			return ctx.Err()
		}, errConfig},
		{"fails stopping", func(ctx context.Context, first bool) error {
			<-ctx.Done()
			return errFlush // at shutdown: an error of its own
		}, errFlush},
		{"stops as told", func(ctx context.Context, first bool) error {
			<-ctx.Done()
			return context.Cause(ctx) // ErrShutdown wrapping Canceled: not the work's own
		}, nil},
		{"stops with ctx.Err", func(ctx context.Context, first bool) error {
			<-ctx.Done()
			return ctx.Err()
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var ev events
				c := newCandidate(t, memserver.New(nil), "a", &ev)
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				var mu sync.Mutex
				terms := 0
				go func() {
					done <- c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
						mu.Lock()
						terms++
						first := terms == 1
						mu.Unlock()
						return tc.work(ctx, first)
					})
				}()
				time.Sleep(time.Minute)
				cancel()
				err := <-done
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run returned %v; want it to wrap context.Canceled", err)
				}
				if tc.want == nil {
					if err != context.Canceled {
						t.Errorf("Run returned %q; want context.Canceled alone", err)
					}
					return
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("Run returned %q; want it to carry the work's error %q", err, tc.want)
				}
				if !strings.Contains(err.Error(), "the work last failed in term ") {
					t.Errorf("Run's error %q does not say which term failed", err)
				}
				if tc.want == errConfig {
					if e := ev.of(elector.Ended); len(e) == 0 || !errors.Is(e[0].Err, elector.ErrWorkReturned) {
						t.Errorf("Ended events %+v; want the first caused by ErrWorkReturned", e)
					}
				}
			})
		})
	}
}

// TestEndedBeforeWaitAndRelease: every term whose work started emits one
// Ended event, with the leader context's cause, as soon as that context
// ends: an observer sees it while the work still runs (it takes a second to
// stop here) and before the term is released. Before issue 17 there was no
// such moment to hook: Lost came only for losses, Released only after the
// work returned and the release.
func TestEndedBeforeWaitAndRelease(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   func(c *elector.Candidate, s *memserver.Server, cancel context.CancelFunc)
		cause error
		held  bool // the store still holds the term at Ended
	}{
		{"resign", func(c *elector.Candidate, _ *memserver.Server, _ context.CancelFunc) {
			go func() { _ = c.Resign(context.Background()) }()
		}, elector.ErrResigned, true},
		{"shutdown", func(_ *elector.Candidate, _ *memserver.Server, cancel context.CancelFunc) { cancel() }, elector.ErrShutdown, true},
		{"store lost it", func(_ *elector.Candidate, s *memserver.Server, _ context.CancelFunc) { s.LoseLeases() }, elector.ErrLost, false},
		{"deadline", func(_ *elector.Candidate, s *memserver.Server, _ context.CancelFunc) { s.SetDown(true) }, elector.ErrDeadlinePassed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := memserver.New(nil)
				var ev events
				c := newCandidate(t, s, "a", &ev)
				type seen struct {
					e            elector.Event
					workReturned bool
					rec          elector.Record
					readErr      error
				}
				var (
					mu           sync.Mutex
					workReturned bool
					ended        []seen
				)
				c.AddObserver(func(e elector.Event) {
					if e.Kind != elector.Ended {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					// While the store is down (the deadline case) Read
					// fails; that case does not look at the record.
					rec, err := s.Read(context.Background(), "lease")
					ended = append(ended, seen{e, workReturned, rec, err})
				})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				started := make(chan elector.Lease, 10)
				done := make(chan error, 1)
				go func() {
					done <- c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
						started <- l
						<-ctx.Done()
						time.Sleep(time.Second) // slow to stop, within the stop budget
						mu.Lock()
						workReturned = true
						mu.Unlock()
						return nil
					})
				}()
				l := <-started
				tc.end(c, s, cancel)
				time.Sleep(testTiming.LeaseDuration)
				synctest.Wait()
				mu.Lock()
				got := append([]seen(nil), ended...)
				mu.Unlock()
				cancel()
				<-done
				if len(got) == 0 {
					t.Fatal("no Ended event")
				}
				first := got[0]
				if first.e.Token != l.Token() || !errors.Is(first.e.Err, tc.cause) {
					t.Errorf("Ended %+v; want token %d and cause %v", first.e, l.Token(), tc.cause)
				}
				if first.workReturned {
					t.Error("Ended came after the work returned; want it when the leader context ends")
				}
				if tc.held && (first.readErr != nil || !first.rec.Held || first.rec.Token != l.Token()) {
					t.Errorf("at Ended the store had %+v, %v; want the term still held (not yet released)", first.rec, first.readErr)
				}
				// One Ended per term whose work started, the later terms
				// (after a resign, say) included.
				if n, m := len(ev.of(elector.Acquired)), len(ev.of(elector.Ended)); n != m {
					t.Errorf("%d Ended events for %d terms", m, n)
				}
			})
		})
	}
}
