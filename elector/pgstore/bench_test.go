package pgstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
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
func BenchmarkAcquireRelease(b *testing.B) { electorbench.AcquireRelease(b, benchStore(b), "bench") }

// BenchmarkRenew measures the leader's steady-state cost.
func BenchmarkRenew(b *testing.B) { electorbench.Renew(b, benchStore(b), "bench") }

// BenchmarkHandover measures release-to-wakeup: a leader releases and a
// watching standby is notified (LISTEN/NOTIFY) and acquires.
func BenchmarkHandover(b *testing.B) { electorbench.WatchHandover(b, benchStore(b), "bench") }
