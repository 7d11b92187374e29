package etcdstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The Elector benchmarks measure the same vacancies as BenchmarkHandover
// and BenchmarkFailover, but through the elector core (Candidate.Run) on
// this store, which is what an application sees: handover from Resign until
// the standby's work starts; failover from a leader's crash until the
// standby's work starts. Timing: electorbench.Timing() (2 s lease, 500 ms
// renew, 200 ms retry).

// benchCandidate is a running candidate whose work reports its start.
type benchCandidate struct {
	c       *elector.Candidate
	store   *electorbench.Crashable
	started chan time.Time
	stop    context.CancelFunc
	done    chan struct{}
	lastAck atomic.Int64 // unix ns of the last Acquired or Renewed event
}

func startBenchCandidate(b *testing.B, s *Store, name, id string) *benchCandidate {
	b.Helper()
	bc := &benchCandidate{store: electorbench.NewCrashable(s), started: make(chan time.Time, 16), done: make(chan struct{})}
	c, err := elector.New(bc.store, name, elector.WithIdentity(id), elector.WithTiming(electorbench.Timing()),
		elector.WithEvents(func(ev elector.Event) {
			if ev.Kind == elector.Acquired || ev.Kind == elector.Renewed {
				bc.lastAck.Store(ev.Time.UnixNano())
			}
		}))
	if err != nil {
		b.Fatal(err)
	}
	bc.c = c
	ctx, cancel := context.WithCancel(context.Background())
	bc.stop = cancel
	go func() {
		defer close(bc.done)
		_ = c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
			bc.started <- time.Now()
			<-ctx.Done()
			return nil
		})
	}()
	b.Cleanup(func() { cancel(); <-bc.done })
	return bc
}

func (bc *benchCandidate) waitLead(b *testing.B) time.Time {
	b.Helper()
	select {
	case at := <-bc.started:
		return at
	case <-time.After(30 * time.Second):
		b.Fatal("candidate did not lead within 30 s")
		return time.Time{}
	}
}

func BenchmarkElectorHandover(b *testing.B) {
	e := testserver.Etcd(b)
	name := fmt.Sprintf("elector-handover-%d", rand.Uint64())
	cs := []*benchCandidate{
		startBenchCandidate(b, New(benchClient(b, e)), name, "c0"),
	}
	cs[0].waitLead(b)
	cs = append(cs, startBenchCandidate(b, New(benchClient(b, e)), name, "c1"))
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := cs[i%2], cs[(i+1)%2]
		// The resigned candidate waits two retry intervals before it
		// competes again; let it become a settled standby first.
		time.Sleep(2*electorbench.Timing().RetryInterval + settle)
		start := time.Now()
		if !leader.c.Resign() {
			b.Fatal("leader had no term to resign")
		}
		ds = append(ds, next.waitLead(b).Sub(start))
	}
	b.StopTimer()
	reportLatencies(b, ds)
}

func BenchmarkElectorFailover(b *testing.B) {
	e := testserver.Etcd(b)
	name := fmt.Sprintf("elector-failover-%d", rand.Uint64())
	leader := startBenchCandidate(b, New(benchClient(b, e)), name, "c0")
	leader.waitLead(b)
	ds := make([]time.Duration, 0, b.N)
	sinceAck := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := startBenchCandidate(b, New(benchClient(b, e)), name, fmt.Sprintf("c%d", i+1))
		time.Sleep(settle)
		time.Sleep(time.Duration(rand.Int64N(int64(electorbench.Timing().RenewInterval))))
		start := time.Now()
		leader.store.Crash() // no renew, no release from here on
		leader.stop()
		at := next.waitLead(b)
		ds = append(ds, at.Sub(start))
		sinceAck = append(sinceAck, at.Sub(time.Unix(0, leader.lastAck.Load())))
		leader = next
	}
	b.StopTimer()
	reportLatencies(b, ds)
	reportPercentiles(b, sinceAck, "-after-last-ack")
}
