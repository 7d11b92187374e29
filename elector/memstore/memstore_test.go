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
