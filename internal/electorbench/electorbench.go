// Package electorbench holds what the elector store benchmarks share: the
// timing they run with, p50/p99 reporting of measured vacancies, a store
// wrapper that makes a candidate crash, and the two measurements (graceful
// handover and crash failover), which drive the elector core or a peer
// library's leader loop through one Contender interface, so that every store
// and every peer is measured by the same code and the figures in
// docs/benchmarks.md compare.
//
// Only benchmarks import it; it imports testing.
package electorbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// Timing is the elector timing of every store benchmark: a 2 s lease
// (etcd's minimum, so all stores run alike), renewed every 500 ms, standbys
// polling every 200 ms (+0..20% jitter). It is the timing of the etcd
// store's own elector benchmarks, so the three stores compare.
func Timing() elector.Timing {
	return elector.Timing{
		LeaseDuration: 2 * time.Second,
		RenewInterval: 500 * time.Millisecond,
		RetryInterval: 200 * time.Millisecond,
		DriftBound:    200 * time.Millisecond,
		StopBudget:    200 * time.Millisecond,
	}
}

// Settle is how long a standby has been waiting before the leader steps
// down or crashes. In production a standby has waited a while; measuring
// right after it started would charge its start-up (opening its watch, its
// first acquire) to the handover.
const Settle = 200 * time.Millisecond

// Percentile is the nearest-rank p-quantile of ds (0 < p <= 1): the smallest
// sample that at least p of the samples do not exceed. With fewer than 100
// samples p99 is the maximum.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Report reports p50 and p99 of ds in milliseconds, as units
// p50<suffix>-ms and p99<suffix>-ms, and, when lease is not zero, the same
// percentiles as a fraction of the lease duration (p50<suffix>-lease-ratio,
// p99<suffix>-lease-ratio), which is what bounds crash failover.
func Report(b *testing.B, ds []time.Duration, suffix string, lease time.Duration) {
	b.Helper()
	if len(ds) == 0 {
		return
	}
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		d := Percentile(ds, p.q)
		b.ReportMetric(float64(d)/float64(time.Millisecond), p.name+suffix+"-ms")
		if lease > 0 {
			b.ReportMetric(float64(d)/float64(lease), p.name+suffix+"-lease-ratio")
		}
	}
}

// Store is a store with wakeups, as every benchmarked store is.
type Store interface {
	elector.Store
	elector.Watcher
}

// ErrCrashed is what a crashed candidate's store calls return.
var ErrCrashed = errors.New("electorbench: candidate crashed")

// Crashable is one candidate process's view of a store: after Crash every
// call fails at once without reaching the server, as if the process and its
// connections were gone. The server keeps the lease until it expires, as it
// would after kill -9.
type Crashable struct {
	s    Store
	dead atomic.Bool
}

// NewCrashable wraps s for one candidate process.
func NewCrashable(s Store) *Crashable { return &Crashable{s: s} }

// Crash makes every later call fail with ErrCrashed.
func (c *Crashable) Crash() { c.dead.Store(true) }

func (c *Crashable) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	if c.dead.Load() {
		return elector.Term{}, ErrCrashed
	}
	return c.s.Acquire(ctx, name, holder, ttl)
}

func (c *Crashable) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if c.dead.Load() {
		return ErrCrashed
	}
	return c.s.Renew(ctx, t, ttl)
}

func (c *Crashable) Release(ctx context.Context, t elector.Term) error {
	if c.dead.Load() {
		return ErrCrashed
	}
	return c.s.Release(ctx, t)
}

func (c *Crashable) Read(ctx context.Context, name string) (elector.Record, error) {
	if c.dead.Load() {
		return elector.Record{}, ErrCrashed
	}
	return c.s.Read(ctx, name)
}

func (c *Crashable) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	if c.dead.Load() {
		return nil, ErrCrashed
	}
	return c.s.Watch(ctx, name)
}

// Candidate is a running elector candidate whose work reports when it
// starts, which is the moment an application's work would start.
type Candidate struct {
	C       *elector.Candidate
	store   *Crashable
	started chan time.Time
	lastAck atomic.Int64 // unix ns of the last Acquired or Renewed event
	stop    context.CancelFunc
	done    chan struct{}
}

// StartCandidate runs a candidate with identity id for lease name on s,
// with Timing; it is stopped when the benchmark ends.
func StartCandidate(b *testing.B, s Store, name, id string) *Candidate {
	b.Helper()
	c := &Candidate{store: NewCrashable(s), started: make(chan time.Time, 16), done: make(chan struct{})}
	ec, err := elector.New(c.store, name, elector.WithIdentity(id), elector.WithTiming(Timing()),
		elector.WithEvents(func(ev elector.Event) {
			if ev.Kind == elector.Acquired || ev.Kind == elector.Renewed {
				c.lastAck.Store(ev.Time.UnixNano())
			}
		}))
	if err != nil {
		b.Fatal(err)
	}
	c.C = ec
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	go func() {
		defer close(c.done)
		_ = ec.Run(ctx, func(ctx context.Context, _ elector.Lease) error {
			c.started <- time.Now()
			<-ctx.Done()
			return nil
		})
	}()
	b.Cleanup(c.Stop)
	return c
}

// Stop ends the candidate's Run (releasing its term unless it crashed) and
// waits for it.
func (c *Candidate) Stop() { c.stop(); <-c.done }

// Crash kills the candidate: no renew and no release reach the server from
// now on.
func (c *Candidate) Crash() {
	c.store.Crash()
	c.Stop()
}

// LastAck is when the candidate last saw an acquire or renew succeed.
func (c *Candidate) LastAck() time.Time { return time.Unix(0, c.lastAck.Load()) }

// WaitLead returns when the candidate's work started next.
func (c *Candidate) WaitLead(b *testing.B) time.Time {
	b.Helper()
	select {
	case at := <-c.started:
		return at
	case <-time.After(30 * time.Second):
		b.Fatal("candidate did not lead within 30 s")
		return time.Time{}
	}
}

// Open returns a new client of the store under test: every call is a
// separate candidate process with its own connections, all on the same
// lease namespace.
type Open func(b *testing.B) Store

// Resign gives up the candidate's term gracefully and waits until it was
// released (see elector.Candidate.Resign); it reports whether there was a
// term. The standby's takeover is timed by its own lead, not by Resign's
// return.
func (c *Candidate) Resign() bool {
	return !errors.Is(c.C.Resign(context.Background()), elector.ErrNotLeading)
}

// Contender is one competitor for a lease as the measurements drive it: the
// elector's Candidate, or a peer library's leader loop, so that both are
// measured by the same code.
type Contender interface {
	// WaitLead returns when the contender's work started next.
	WaitLead(b *testing.B) time.Time
	// Resign steps down gracefully: the work stops, the lease is
	// released, and the contender waits two retry intervals before it
	// competes again. It reports whether there was a term to give up.
	Resign() bool
	// Crash kills the contender: nothing of it reaches the server any
	// more, the lease is neither renewed nor released.
	Crash()
	// LastAck is when the contender last saw its lease granted or renewed.
	LastAck() time.Time
}

// Start starts a contender with identity id for lease name; it is stopped
// when the benchmark ends.
type Start func(b *testing.B, name, id string) Contender

// Handover measures graceful handover through the elector core on the
// stores open returns; see MeasureHandover.
func Handover(b *testing.B, open Open) []time.Duration { return MeasureHandover(b, candidates(open)) }

// Failover measures crash failover through the elector core on the stores
// open returns; see MeasureFailover.
func Failover(b *testing.B, open Open) []time.Duration { return MeasureFailover(b, candidates(open)) }

func candidates(open Open) Start {
	return func(b *testing.B, name, id string) Contender { return StartCandidate(b, open(b), name, id) }
}

// MeasureHandover measures graceful handover: from the leader's Resign to
// the standby's work starting. For the elector, the resigned leader releases
// after its work returns and the standby, woken by the store's watch,
// acquires. The two contenders take turns. It returns the vacancies.
func MeasureHandover(b *testing.B, start Start) []time.Duration {
	name := testserver.UniqueName("handover")
	cs := []Contender{start(b, name, "c0")}
	cs[0].WaitLead(b)
	cs = append(cs, start(b, name, "c1"))
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		leader, next := cs[i%2], cs[(i+1)%2]
		// A resigned contender waits two retry intervals before it
		// competes again; let it become a settled standby first. The
		// random phase keeps the release from falling in step with a
		// polling standby's cadence: without it a loop that polls at a
		// fixed interval would hit (or miss) every release by the same
		// margin, and its figures would measure the benchmark's rhythm.
		time.Sleep(2*Timing().RetryInterval + Settle + RandomPhase(Timing().RetryInterval))
		begin := time.Now()
		if !leader.Resign() {
			b.Fatal("leader had no term to resign")
		}
		ds = append(ds, next.WaitLead(b).Sub(begin))
	}
	b.StopTimer()
	Report(b, ds, "", Timing().LeaseDuration)
	return ds
}

// MeasureFailover measures crash failover: from the leader's crash (at a
// random phase of its renew cadence) to the standby's work starting. The
// PostgreSQL and Redis stores notify no expiry, so there the standby finds
// the lease free by polling: the expected vacancy is the rest of the lease plus up to one
// retry interval. p50/p99-after-last-ack measure from the last renew the
// dead leader saw acknowledged instead, which removes the crash phase. A
// fresh standby replaces the dead leader every round. It returns the
// vacancies counted from the crash.
func MeasureFailover(b *testing.B, start Start) []time.Duration {
	name := testserver.UniqueName("failover")
	leader := start(b, name, "c0")
	leader.WaitLead(b)
	ds := make([]time.Duration, 0, b.N)
	sinceAck := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The standby starts at a random phase of the leader's renew
		// cadence, so the expiry falls at a random point of its polling
		// (see MeasureHandover), and the crash at a random phase of the
		// renew cadence.
		time.Sleep(RandomPhase(Timing().RetryInterval))
		next := start(b, name, fmt.Sprintf("c%d", i+1))
		time.Sleep(Settle + RandomPhase(Timing().RenewInterval))
		begin := time.Now()
		leader.Crash()
		at := next.WaitLead(b)
		ds = append(ds, at.Sub(begin))
		sinceAck = append(sinceAck, at.Sub(leader.LastAck()))
		leader = next
	}
	b.StopTimer()
	Report(b, ds, "", Timing().LeaseDuration)
	Report(b, sinceAck, "-after-last-ack", Timing().LeaseDuration)
	return ds
}

var (
	rememberedMu sync.Mutex
	remembered   = map[string][]time.Duration{}
)

// Remember keeps ds under key for ReportRatio later in the same test
// binary run. A benchmark runs more than once (b.N = 1 first); the last
// run, the one reported, wins.
func Remember(key string, ds []time.Duration) {
	rememberedMu.Lock()
	defer rememberedMu.Unlock()
	remembered[key] = slices.Clone(ds)
}

// ReportRatio reports the p50 and p99 of the vacancies remembered under key
// divided by those of peer, as p50-<key>-over-peer and p99-<key>-over-peer
// (below 1: the remembered contender is faster), so that a peer benchmark
// that runs after ours prints the ratios the issue asks for. Without them
// (the benchmark filtered out) it logs why and reports nothing.
func ReportRatio(b *testing.B, key string, peer []time.Duration) {
	b.Helper()
	rememberedMu.Lock()
	ours, ok := remembered[key]
	rememberedMu.Unlock()
	if !ok || len(ours) == 0 || len(peer) == 0 {
		b.Logf("no %s figures in this run: run that benchmark before this one for the ratios", key)
		return
	}
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		b.ReportMetric(float64(Percentile(ours, p.q))/float64(Percentile(peer, p.q)), p.name+"-"+key+"-over-peer")
	}
}

// RandomPhase is a random wait shorter than d, so that an event lands at a
// random point of a cadence of period d.
func RandomPhase(d time.Duration) time.Duration {
	return time.Duration(rand.Int64N(int64(d)))
}
