package redisstore

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	c := redis.NewClient(&redis.Options{Addr: testserver.Redis(b).Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	return mustNew(b, c, WithPrefix(testserver.UniqueName("bench")+":"))
}

// BenchmarkAcquireRelease measures one full term: grant and release.
func BenchmarkAcquireRelease(b *testing.B) { electorbench.AcquireRelease(b, benchStore(b), "bench") }

// BenchmarkRenew measures the leader's steady-state cost.
func BenchmarkRenew(b *testing.B) { electorbench.Renew(b, benchStore(b), "bench") }

// BenchmarkHandover measures release-to-wakeup: a leader releases and a
// watching standby is notified (pub/sub) and acquires.
func BenchmarkHandover(b *testing.B) { electorbench.WatchHandover(b, benchStore(b), "bench") }
