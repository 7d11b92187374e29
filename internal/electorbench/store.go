package electorbench

import (
	"context"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// The store-level benchmarks: the cost of one store call, without the
// elector. Every store package runs them on its own server so that
// docs/benchmarks.md compares the same loops.

// AcquireRelease measures one full term: grant and release of lease name.
func AcquireRelease(b *testing.B, s elector.Store, name string) {
	ctx := context.Background()
	for b.Loop() {
		term, err := s.Acquire(ctx, name, "a", time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Release(ctx, term); err != nil {
			b.Fatal(err)
		}
	}
}

// Renew measures the leader's steady-state cost: one renewal of a held
// term.
func Renew(b *testing.B, s elector.Store, name string) {
	ctx := context.Background()
	term, err := s.Acquire(ctx, name, "a", time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Renew(ctx, term, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// WatchHandover measures release-to-wakeup through the store's watch: a
// leader releases, the watching standby is notified and acquires; the two
// holders alternate. Each release and each acquire must wake the watch.
func WatchHandover(b *testing.B, s elector.Store, name string) {
	w, ok := s.(elector.Watcher)
	if !ok {
		b.Fatalf("%T has no Watch", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx, name)
	if err != nil {
		b.Fatal(err)
	}
	holders := [2]string{"a", "b"}
	term, err := s.Acquire(ctx, name, holders[0], time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	<-ch // the acquire's own notification
	i := 0
	for b.Loop() {
		if err := s.Release(ctx, term); err != nil {
			b.Fatal(err)
		}
		<-ch
		i++
		if term, err = s.Acquire(ctx, name, holders[i%2], time.Minute); err != nil {
			b.Fatal(err)
		}
		<-ch
	}
}
