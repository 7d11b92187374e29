package faulttest

import (
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// shortStall is how long StallShorterThanLease blacks out the leader's
// connections: half the safe window (0.8 s of a 2 s lease). However the
// stall falls between renews, an attempt is in flight when it ends (one
// starts every retry interval and lives two), and answers before the
// deadline: the leader must keep its term, also on stores that multiplex
// every request over one connection (etcd's gRPC, the Kubernetes client's
// HTTP/2), where no new connection can route around the stall.
var shortStall = timing.SafeWindow() / 2

// longStall is how long StallLongerThanLease blacks them out: a lease plus
// the granularity a store may keep a lease past its ttl
// (storetest.Granularity: Azure's whole-second Date) plus half a lease, so
// the standby has half a lease to take the freed lease before the stalled
// requests are delivered late (at one and a half leases, the old leader's
// late re-acquire raced the standby on azblobstore: one of four CI runs).
var longStall = timing.LeaseDuration*3/2 + storetest.Granularity

// testStallShort: every connection between the leader and the server stalls
// for shortStall and then flows again. The hung renew must cost a retry
// interval, not the term: the leader keeps its token and writes again after
// the stall, and the standby never leads.
func testStallShort(t *testing.T, env Env) {
	srv := env.Server(t, false)
	proxy := testserver.NewProxy(t, srv.Addr())
	g := NewGroup(t, env)
	first, _ := startPair(t, env, g, srv, proxy.Addr())

	_, leader := g.leaderBeforeFault("a")
	g.Tracef("stalling the leader's connections for %v", shortStall)
	proxy.Stall()
	time.Sleep(shortStall)
	proxy.Heal()
	healed := time.Now()
	g.Tracef("healed")
	// The leader keeps its term through the stall and for a lease after it.
	until := healed.Add(timing.LeaseDuration)
	wroteAfter := false
	for time.Now().Before(until) || !wroteAfter {
		e := g.Wait("a write by the leader after the stall", func(e Event) bool {
			return e.Kind == End || e.Kind == Lead || (e.Kind == Write && e.Token == leader && e.Cause == nil)
		})
		switch e.Kind {
		case End, Lead:
			t.Fatalf("%v %v after a %v stall began: the leader lost a term a stall shorter than its safe window (%v) must not cost",
				e, e.At.Sub(healed.Add(-shortStall)).Round(time.Millisecond), shortStall, timing.SafeWindow())
		case Write:
			wroteAfter = wroteAfter || e.At.After(healed)
		}
	}
	t.Logf("leader kept token %d through a %v stall of all its connections", leader, shortStall)
	checkRead(t, open(t, env, srv, srv.Addr()), g.name, "a", leader)
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, leader)
}

// testStallLong: every connection between the leader and the server stalls
// for longStall, longer than the lease, and then flows again, delivering
// the stalled requests late. The leader's context must end by its deadline,
// before the standby leads; the late renews must not revive the old term
// (the standby keeps leading, which Group checks), and only the new
// leader's writes land after its first.
func testStallLong(t *testing.T, env Env) {
	srv := env.Server(t, false)
	proxy := testserver.NewProxy(t, srv.Addr())
	g := NewGroup(t, env)
	first, _ := startPair(t, env, g, srv, proxy.Addr())

	_, leader := g.leaderBeforeFault("a")
	g.Tracef("stalling the leader's connections for %v", longStall)
	stalled := time.Now()
	proxy.Stall()
	time.AfterFunc(longStall, proxy.Heal)
	end, next := handover(t, g, leader, elector.ErrDeadlinePassed)
	if !end.At.Before(next.At) {
		t.Fatalf("old leader's context ended at %v, after the new leader started at %v", end.At, next.At)
	}
	if d := end.At.Sub(stalled); d > timing.SafeWindow()+time.Second {
		t.Errorf("old leader's context ended %v into the stall; want within the safe window %v", d, timing.SafeWindow())
	}
	t.Logf("old leader stepped down %v into the stall, %v before the standby led",
		end.At.Sub(stalled).Round(time.Millisecond), next.At.Sub(end.At).Round(time.Millisecond))
	// Past the heal, the late requests have arrived: b still leads.
	time.Sleep(time.Until(stalled.Add(longStall)) + 4*timing.RetryInterval)
	if who, tok, ok := g.Leader(); !ok || who != "b" || tok != next.Token {
		t.Fatalf("after the stall healed the leader is %q token %d (live %v); want b token %d", who, tok, ok, next.Token)
	}
	g.Wait("a write by the new leader", wroteOK(next.Token))
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, next.Token)
}

// halfOpenStall is how long HalfOpenStall freezes the leader's open
// connections: 1.7 s of a 2 s lease, longer than the safe window (1.6 s),
// so a renew that waits on a frozen connection cannot save the term
// whenever the freeze begins (issue 17 measured 1.3 s, which lost the term
// in 2 of 5 tries, depending on where between renews it began).
var halfOpenStall = timing.LeaseDuration * 17 / 20

// testHalfOpenStall: the connections the leader has open freeze for
// halfOpenStall while new ones work. A pooled client must route around
// them: each renew attempt is bounded and a new one starts every retry
// interval, so one lands on a fresh connection and the leader keeps its
// term. Stores whose client multiplexes every request over one connection
// cannot route around it and skip this scenario.
func testHalfOpenStall(t *testing.T, env Env) {
	srv := env.Server(t, false)
	proxy := newHalfOpenProxy(t, srv.Addr())
	g := NewGroup(t, env)
	// The leader's writes use a client of their own, reaching the server
	// directly: on the leader's client only the elector's own requests
	// remain, so a frozen connection sits idle in its pool, where the next
	// renew picks it up (shared with the writes, a write would take it
	// first and the renew would dial a new one, hiding the hazard).
	g.StartWriting("a", open(t, env, srv, proxy.Addr()), open(t, env, srv, srv.Addr()))
	first := g.Wait("first leader", Leads)
	g.Start("b", open(t, env, srv, srv.Addr()))
	g.Wait("a write by the first leader", wroteOK(first.Token))

	_, leader := g.leaderBeforeFault("a")
	n := proxy.freezeOpen(halfOpenStall)
	frozen := time.Now()
	g.Tracef("froze the leader's %d open connections for %v", n, halfOpenStall)
	until := frozen.Add(halfOpenStall + timing.LeaseDuration)
	wroteAfter := false
	for time.Now().Before(until) || !wroteAfter {
		e := g.Wait("a write by the leader after the freeze", func(e Event) bool {
			return e.Kind == End || e.Kind == Lead || (e.Kind == Write && e.Token == leader && e.Cause == nil)
		})
		switch e.Kind {
		case End, Lead:
			t.Fatalf("%v %v after %d open connections froze for %v (new ones working): the leader lost its term",
				e, e.At.Sub(frozen).Round(time.Millisecond), n, halfOpenStall)
		case Write:
			wroteAfter = wroteAfter || e.At.After(frozen.Add(halfOpenStall))
		}
	}
	t.Logf("leader kept token %d with %d open connections frozen for %v", leader, n, halfOpenStall)
	checkRead(t, open(t, env, srv, srv.Addr()), g.name, "a", leader)
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, leader)
}
