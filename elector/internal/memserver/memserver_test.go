package memserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
)

func TestRestartsKeepTokens(t *testing.T) {
	s := memserver.New(nil)
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
	if err := s.Release(ctx, b); !errors.Is(err, memserver.ErrUnavailable) {
		t.Fatalf("Release while down: %v", err)
	}
	s.SetDown(false)
	if rec, _ := s.Read(ctx, "n"); !rec.Held || rec.Term != b {
		t.Fatalf("after the outage: %+v", rec)
	}
}
