package memstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

func TestConformance(t *testing.T) {
	s := memstore.New()
	storetest.Run(t, func(t *testing.T) elector.Store { return s })
}

// fakeClock is a manually advanced clock.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

func TestInjectedClockJudgesExpiry(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1000, 0)}
	s := memstore.New(memstore.WithClock(clk.Now))
	ctx := context.Background()
	a, err := s.Acquire(ctx, "n", "a", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(10*time.Second - time.Nanosecond)
	if rec, _ := s.Read(ctx, "n"); !rec.Held || rec.Remaining != time.Nanosecond {
		t.Fatalf("1ns before expiry: %+v", rec)
	}
	if _, err := s.Acquire(ctx, "n", "b", time.Second); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("Acquire 1ns before expiry: %v", err)
	}
	clk.advance(time.Nanosecond)
	if err := s.Renew(ctx, a, time.Second); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("Renew at expiry: %v", err)
	}
	if b, err := s.Acquire(ctx, "n", "b", time.Second); err != nil || b.Token != a.Token+1 {
		t.Fatalf("Acquire at expiry: %+v, %v", b, err)
	}
}

func TestRestartsKeepTokens(t *testing.T) {
	s := memstore.New()
	ctx := context.Background()
	ch, err := s.Watch(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Acquire(ctx, "n", "a", time.Minute)
	<-ch
	// A durable restart keeps the lease and breaks the watch.
	s.Restart()
	if _, open := <-ch; open {
		t.Fatal("watch survived a restart")
	}
	if err := s.Renew(ctx, a, time.Minute); err != nil {
		t.Fatalf("lease lost in a durable restart: %v", err)
	}
	// A volatile restart forgets the lease, never the token counter.
	s.LoseLeases()
	if err := s.Renew(ctx, a, time.Minute); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("Renew after losing leases: %v", err)
	}
	b, err := s.Acquire(ctx, "n", "b", time.Minute)
	if err != nil || b.Token <= a.Token {
		t.Fatalf("token after losing leases %+v, %v; want > %d", b, err, a.Token)
	}
	// While down, every call fails and changes nothing.
	s.SetDown(true)
	if err := s.Release(ctx, b); !errors.Is(err, memstore.ErrUnavailable) {
		t.Fatalf("Release while down: %v", err)
	}
	s.SetDown(false)
	if rec, _ := s.Read(ctx, "n"); !rec.Held || rec.Term != b {
		t.Fatalf("after the outage: %+v", rec)
	}
}
