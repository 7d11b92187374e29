package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// benchStore opens a store on the shared server with a table of its own.
func benchStore(b *testing.B) *Store {
	b.Helper()
	pool, err := pgxpool.New(context.Background(), testserver.Postgres(b).DSN())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	s, err := New(pool, WithTable(testserver.UniqueName("bench")))
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkAcquireRelease measures one full term: grant and release.
func BenchmarkAcquireRelease(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for b.Loop() {
		term, err := s.Acquire(ctx, "bench", "a", time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Release(ctx, term); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenew measures the leader's steady-state cost.
func BenchmarkRenew(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	term, err := s.Acquire(ctx, "bench", "a", time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Renew(ctx, term, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandover measures release-to-wakeup: a leader releases and a
// watching standby is notified (LISTEN/NOTIFY) and acquires.
func BenchmarkHandover(b *testing.B) {
	s := benchStore(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.Watch(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	holders := [2]string{"a", "b"}
	term, err := s.Acquire(ctx, "bench", holders[0], time.Minute)
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
		if term, err = s.Acquire(ctx, "bench", holders[i%2], time.Minute); err != nil {
			b.Fatal(err)
		}
		<-ch
	}
}
