package pgstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The Elector benchmarks measure what an application sees on postgres,
// through the elector core (Candidate.Run) with LISTEN/NOTIFY wakeups:
// graceful handover from Resign to the standby's work starting, and crash
// failover from the leader's crash to the standby's work starting, with a
// 2 s lease (electorbench.Timing, the same as the etcd benchmarks). Failover
// takes seconds per iteration; run with a fixed count, e.g. -benchtime=20x.

// electorStores returns an opener of candidate stores that share one lease
// table on the shared server; each candidate gets its own pool, as a
// separate process would.
func electorStores(b *testing.B) electorbench.Open {
	dsn := testserver.Postgres(b).DSN()
	table := testserver.UniqueName("bench_elector")
	migrated := false
	return func(b *testing.B) electorbench.Store {
		b.Helper()
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		// Registered before the candidate's own cleanup, so it runs after
		// the candidate has stopped and released.
		b.Cleanup(pool.Close)
		s, err := New(pool, WithTable(table))
		if err != nil {
			b.Fatal(err)
		}
		if !migrated {
			if err := s.Migrate(context.Background()); err != nil {
				b.Fatal(err)
			}
			migrated = true
		}
		return s
	}
}

func BenchmarkElectorHandover(b *testing.B) { electorbench.Handover(b, electorStores(b)) }

func BenchmarkElectorFailover(b *testing.B) { electorbench.Failover(b, electorStores(b)) }
