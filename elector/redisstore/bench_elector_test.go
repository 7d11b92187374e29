package redisstore

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The Elector benchmarks measure what an application sees on Redis,
// through the elector core (Candidate.Run) with pub/sub wakeups: graceful
// handover from Resign to the standby's work starting, and crash failover
// from the leader's crash to the standby's work starting, with a 2 s lease
// (electorbench.Timing, the same as the etcd benchmarks). Failover takes
// seconds per iteration; run with a fixed count, e.g. -benchtime=20x.
// bench_peer_test.go measures a bsm/redislock leader loop the same way.

// benchClient is one candidate process's connection, closed when the
// benchmark ends (after the candidate, whose cleanup was registered later).
func benchClient(b *testing.B, addr string) *redis.Client {
	b.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:         addr,
		DialTimeout:  time.Second,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   -1, // a retried script could act twice; the elector retries
		// Context deadlines bound each request (a stalled connection).
		ContextTimeoutEnabled: true,
	})
	b.Cleanup(func() { c.Close() })
	return c
}

// electorStores returns an opener of candidate stores under one prefix on
// the shared server, each with its own client.
func electorStores(b *testing.B) electorbench.Open {
	addr := testserver.Redis(b).Addr()
	prefix := testserver.UniqueName("bench") + ":"
	return func(b *testing.B) electorbench.Store {
		return mustNew(b, benchClient(b, addr), WithPrefix(prefix))
	}
}

// The figures are remembered for the ratios the Peer benchmarks, which run
// after these, report.

func BenchmarkElectorHandover(b *testing.B) {
	electorbench.Remember("elector-handover", electorbench.Handover(b, electorStores(b)))
}

func BenchmarkElectorFailover(b *testing.B) {
	electorbench.Remember("elector-failover", electorbench.Failover(b, electorStores(b)))
}
