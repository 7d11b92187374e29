package azblobstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The benchmarks measure how long leadership is vacant on Azurite, like
// the other stores' (elector/etcdstore/bench_test.go), reporting p50 and
// p99 in milliseconds:
//
//   - handover: from the moment the leader starts to release until the
//     standby knows it leads;
//   - failover: from the moment the leader stops renewing (a crash, at a
//     random phase of its renew cadence) until the standby knows it leads.
//
// The store has no watch, so the standby polls with Acquire every
// pollInterval: handover costs about half of that on average, failover
// the ttl plus the store's rounding (the Date header has whole seconds)
// plus the poll. Failover takes seconds per iteration; run with a fixed
// count: go test -run '^$' -bench . -benchtime=10x ./elector/azblobstore

const (
	benchTTL     = 2 * time.Second
	pollInterval = 250 * time.Millisecond
)

// poll acquires name for holder, retrying every pollInterval while it is
// held, and returns when it got it.
func poll(ctx context.Context, s *Store, name, holder string) (elector.Term, time.Time, error) {
	for {
		t, err := s.Acquire(ctx, name, holder, benchTTL)
		if err == nil {
			return t, time.Now(), nil
		}
		if !errors.Is(err, elector.ErrHeld) {
			return elector.Term{}, time.Time{}, err
		}
		select {
		case <-ctx.Done():
			return elector.Term{}, time.Time{}, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

type polled struct {
	at  time.Time
	err error
}

func startPoll(ctx context.Context, s *Store, name, holder string) <-chan polled {
	ch := make(chan polled, 1)
	go func() {
		_, at, err := poll(ctx, s, name, holder)
		ch <- polled{at, err}
	}()
	return ch
}

func benchName() string {
	return "bench-" + testserver.UniqueName("lease")
}

// BenchmarkHandover: a graceful step-down (Release) to a polling standby.
func BenchmarkHandover(b *testing.B) {
	az := testserver.Azurite(b)
	leader, stby := newStore(b, az.Addr()), newStore(b, az.Addr())
	ctx := context.Background()
	var ds []time.Duration
	for b.Loop() {
		name := benchName()
		term, err := leader.Acquire(ctx, name, "a", benchTTL)
		if err != nil {
			b.Fatal(err)
		}
		got := startPoll(ctx, stby, name, "b")
		// The standby is somewhere in its poll cycle, as in production.
		time.Sleep(pollInterval + time.Duration(rand.Int64N(int64(pollInterval))))
		start := time.Now()
		if err := leader.Release(ctx, term); err != nil {
			b.Fatal(err)
		}
		r := <-got
		if r.err != nil {
			b.Fatal(r.err)
		}
		ds = append(ds, r.at.Sub(start))
	}
	electorbench.Report(b, ds, "", 0)
}

// BenchmarkFailover: the leader renews every ttl/3 and stops at a random
// phase of that cadence, as a crashed process would; a standby polls.
func BenchmarkFailover(b *testing.B) {
	az := testserver.Azurite(b)
	leader, stby := newStore(b, az.Addr()), newStore(b, az.Addr())
	ctx := context.Background()
	var ds, sinceAck []time.Duration
	for b.Loop() {
		name := benchName()
		term, err := leader.Acquire(ctx, name, "a", benchTTL)
		if err != nil {
			b.Fatal(err)
		}
		lastAck := time.Now()
		got := startPoll(ctx, stby, name, "b")
		crash := time.Now().Add(benchTTL + time.Duration(rand.Int64N(int64(benchTTL/3))))
		for time.Now().Add(benchTTL / 3).Before(crash) {
			time.Sleep(benchTTL / 3)
			sent := time.Now()
			if err := leader.Renew(ctx, term, benchTTL); err != nil {
				b.Fatal(err)
			}
			lastAck = sent
		}
		time.Sleep(time.Until(crash))
		stopped := time.Now()
		r := <-got
		if r.err != nil {
			b.Fatal(r.err)
		}
		ds = append(ds, r.at.Sub(stopped))
		sinceAck = append(sinceAck, r.at.Sub(lastAck))
	}
	electorbench.Report(b, ds, "", 0)
	electorbench.Report(b, sinceAck, "-after-last-renew", 0)
}

// BenchmarkRenew measures the leader's steady-state cost: three round
// trips (read, RenewLease, metadata write).
func BenchmarkRenew(b *testing.B) {
	electorbench.Renew(b, newStore(b, testserver.Azurite(b).Addr()), benchName())
}
