package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// The benchmarks measure how long leadership is vacant, on one real etcd,
// for this store and for etcd's own concurrency.Election, so the two can be
// compared on the same server in the same run:
//
//   - handover: from the moment the leader starts to step down until the
//     standby, already waiting, knows it leads;
//   - failover: from the moment the leader stops renewing (a crash) until
//     the standby knows it leads. Both sides use a 2 s TTL (etcd's minimum)
//     and renew every TTL/3, as concurrency.Session does, and crash at a
//     random phase of that cadence.
//
// Each reports p50 and p99 in milliseconds. Failover also reports the
// vacancy measured from the last renew the dead leader saw acknowledged
// (p50-after-last-ack-ms): that removes the renew cadence, which differs
// (this benchmark renews every TTL/3; clientv3's keepalive loop wakes every
// 500 ms, so a 2 s session is refreshed about every second), and leaves
// the server's expiry plus the standby's detection and acquisition. Failover takes seconds per
// iteration; run with a fixed count, e.g. -benchtime=20x.

// settle is how long a standby waits before the leader steps down. In
// production a standby has been waiting for a while; etcd serves a watch that
// starts at a past revision from its "unsynced" group, caught up by a loop
// every 100 ms, so stepping down right after the standby starts waiting
// would charge concurrency.Election up to 100 ms that it does not pay in
// practice.
const settle = 200 * time.Millisecond

// benchTTL is etcd's minimum lease, so failover is as short as etcd allows.
const benchTTL = 2 * time.Second

func benchClient(b *testing.B, e *testserver.EtcdServer) *clientv3.Client {
	return newClient(b, e.Endpoint())
}

// standby waits for name to become free, woken by the store's watch and
// polling every 500 ms as a fallback, and acquires it. ready is closed once
// the standby has seen the lease held and is waiting.
func standby(ctx context.Context, s *Store, name, holder string, ready chan<- struct{}) (elector.Term, time.Time, error) {
	wake, err := s.Watch(ctx, name)
	if err != nil {
		return elector.Term{}, time.Time{}, err
	}
	signalled := false
	for {
		t, err := s.Acquire(ctx, name, holder, benchTTL)
		if err == nil {
			return t, time.Now(), nil
		}
		if !errors.Is(err, elector.ErrHeld) {
			return elector.Term{}, time.Time{}, err
		}
		if !signalled {
			close(ready)
			signalled = true
		}
		select {
		case <-ctx.Done():
			return elector.Term{}, time.Time{}, ctx.Err()
		case <-wake:
		case <-time.After(500 * time.Millisecond):
		}
	}
}

type standbyResult struct {
	term elector.Term
	at   time.Time
	err  error
}

func startStandby(ctx context.Context, s *Store, name, holder string) (ready chan struct{}, result chan standbyResult) {
	ready, result = make(chan struct{}), make(chan standbyResult, 1)
	go func() {
		t, at, err := standby(ctx, s, name, holder, ready)
		result <- standbyResult{t, at, err}
	}()
	return ready, result
}

func waitReady(b *testing.B, ctx context.Context, ready <-chan struct{}, result <-chan standbyResult) {
	b.Helper()
	select {
	case <-ready:
	case r := <-result:
		b.Fatalf("standby ended before waiting: %+v", r)
	case <-ctx.Done():
		b.Fatal("standby not ready")
	}
}

func BenchmarkHandover(b *testing.B) {
	e := testserver.Etcd(b)
	stores := []*Store{New(benchClient(b, e)), New(benchClient(b, e))}
	name := fmt.Sprintf("handover-%d", rand.Uint64())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	term, err := stores[0].Acquire(ctx, name, "s0", benchTTL)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := stores[i%2], stores[(i+1)%2]
		ready, result := startStandby(ctx, next, name, fmt.Sprintf("s%d", (i+1)%2))
		waitReady(b, ctx, ready, result)
		time.Sleep(settle)
		start := time.Now()
		if err := leader.Release(ctx, term); err != nil {
			b.Fatalf("release: %v", err)
		}
		r := <-result
		if r.err != nil {
			b.Fatalf("standby: %v", r.err)
		}
		ds = append(ds, r.at.Sub(start))
		term = r.term
	}
	b.StopTimer()
	electorbench.Report(b, ds, "", 0)
}

// renewLoop renews t every TTL/3 until stop is closed; it returns when it
// has stopped, so no renew is in flight after that, and records when the
// last renew was acknowledged in lastAck.
func renewLoop(s *Store, t elector.Term, stop <-chan struct{}, lastAck *atomic.Int64) <-chan struct{} {
	done := make(chan struct{})
	lastAck.Store(time.Now().UnixNano())
	go func() {
		defer close(done)
		tick := time.NewTicker(benchTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				if s.Renew(ctx, t, benchTTL) == nil {
					lastAck.Store(time.Now().UnixNano())
				}
				cancel()
			}
		}
	}()
	return done
}

// crashPhase is a random wait within one renew period, so a crash lands at
// a random point of the keepalive cadence, for both electors alike.
func crashPhase() time.Duration {
	return benchTTL/3 + time.Duration(rand.Int64N(int64(benchTTL/3)))
}

func BenchmarkFailover(b *testing.B) {
	e := testserver.Etcd(b)
	stores := []*Store{New(benchClient(b, e)), New(benchClient(b, e))}
	name := fmt.Sprintf("failover-%d", rand.Uint64())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	term, err := stores[0].Acquire(ctx, name, "s0", benchTTL)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	sinceAck := make([]time.Duration, 0, b.N)
	var lastAck atomic.Int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := stores[i%2], stores[(i+1)%2]
		stop := make(chan struct{})
		renewing := renewLoop(leader, term, stop, &lastAck)
		ready, result := startStandby(ctx, next, name, fmt.Sprintf("s%d", (i+1)%2))
		waitReady(b, ctx, ready, result)
		time.Sleep(crashPhase())
		start := time.Now()
		close(stop) // the leader dies: no more renews, no release
		<-renewing
		r := <-result
		if r.err != nil {
			b.Fatalf("standby: %v", r.err)
		}
		ds = append(ds, r.at.Sub(start))
		sinceAck = append(sinceAck, r.at.Sub(time.Unix(0, lastAck.Load())))
		term = r.term
	}
	b.StopTimer()
	electorbench.Report(b, ds, "", 0)
	electorbench.Report(b, sinceAck, "-after-last-ack", 0)
}

// peer is one candidate of etcd's own concurrency.Election.
type peer struct {
	c *clientv3.Client
	s *concurrency.Session
	e *concurrency.Election
}

func newPeer(b *testing.B, c *clientv3.Client, prefix string) *peer {
	b.Helper()
	s, err := concurrency.NewSession(c, concurrency.WithTTL(int(benchTTL/time.Second)))
	if err != nil {
		b.Fatal(err)
	}
	return &peer{c: c, s: s, e: concurrency.NewElection(s, prefix)}
}

// campaign starts Campaign in the background and waits until its key is in
// place behind the leader's, so the peer is a waiting standby.
func (p *peer) campaign(b *testing.B, ctx context.Context, prefix, val string) <-chan standbyResult {
	b.Helper()
	result := make(chan standbyResult, 1)
	go func() {
		err := p.e.Campaign(ctx, val)
		result <- standbyResult{term: elector.Term{Token: uint64(p.e.Rev())}, at: time.Now(), err: err}
	}()
	for {
		resp, err := p.c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			b.Fatal(err)
		}
		if resp.Count >= 2 {
			return result
		}
		select {
		case r := <-result:
			b.Fatalf("campaign ended before waiting: %+v", r)
		case <-time.After(time.Millisecond):
		}
	}
}

func BenchmarkPeerElectionHandover(b *testing.B) {
	e := testserver.Etcd(b)
	prefix := fmt.Sprintf("/peer-handover-%d/", rand.Uint64())
	peers := []*peer{newPeer(b, benchClient(b, e), prefix), newPeer(b, benchClient(b, e), prefix)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := peers[0].e.Campaign(ctx, "p0"); err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := peers[i%2], peers[(i+1)%2]
		result := next.campaign(b, ctx, prefix, fmt.Sprintf("p%d", (i+1)%2))
		time.Sleep(settle)
		start := time.Now()
		if err := leader.e.Resign(ctx); err != nil {
			b.Fatalf("resign: %v", err)
		}
		r := <-result
		if r.err != nil {
			b.Fatalf("campaign: %v", r.err)
		}
		ds = append(ds, r.at.Sub(start))
	}
	b.StopTimer()
	electorbench.Report(b, ds, "", 0)
	for _, p := range peers {
		p.s.Close()
	}
}

func BenchmarkPeerElectionFailover(b *testing.B) {
	e := testserver.Etcd(b)
	prefix := fmt.Sprintf("/peer-failover-%d/", rand.Uint64())
	clients := []*clientv3.Client{benchClient(b, e), benchClient(b, e)}
	peers := []*peer{newPeer(b, clients[0], prefix), newPeer(b, clients[1], prefix)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := peers[0].e.Campaign(ctx, "p0"); err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	sinceAck := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := peers[i%2], peers[(i+1)%2]
		// A second KeepAlive on the session's lease shares its keepalive
		// stream and cadence and sees every acknowledgement.
		var lastAck atomic.Int64
		lastAck.Store(time.Now().UnixNano())
		obsCtx, stopObs := context.WithCancel(ctx)
		acks, err := leader.c.KeepAlive(obsCtx, leader.s.Lease())
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range acks {
				lastAck.Store(time.Now().UnixNano())
			}
		}()
		result := next.campaign(b, ctx, prefix, fmt.Sprintf("p%d", (i+1)%2))
		time.Sleep(crashPhase())
		start := time.Now()
		stopObs()
		leader.s.Orphan() // the leader dies: no more keepalives, no revoke
		r := <-result
		if r.err != nil {
			b.Fatalf("campaign: %v", r.err)
		}
		ds = append(ds, r.at.Sub(start))
		sinceAck = append(sinceAck, r.at.Sub(time.Unix(0, lastAck.Load())))
		// The dead peer comes back as a fresh session for the next round.
		peers[i%2] = newPeer(b, clients[i%2], prefix)
	}
	b.StopTimer()
	electorbench.Report(b, ds, "", 0)
	electorbench.Report(b, sinceAck, "-after-last-ack", 0)
	for _, p := range peers {
		p.s.Close()
	}
}
