package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	c := redis.NewClient(&redis.Options{Addr: testserver.Redis(b).Addr(), MaxRetries: -1})
	b.Cleanup(func() { c.Close() })
	return New(c, WithPrefix(testserver.UniqueName("bench")+":"))
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

// BenchmarkHandover measures release-to-wakeup through pub/sub and the
// standby's acquire.
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
	<-ch
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
