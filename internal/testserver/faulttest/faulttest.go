// Package faulttest runs the same fault scenarios against every elector
// store backed by a real server: server restart and crash, a cut or
// stalled connection between the leader and the server, and a leader
// process killed with SIGKILL or frozen with SIGSTOP and resumed.
//
// Each scenario runs real elector candidates (elector.New/Run) with a 1 s
// lease, so it ends within seconds. A store package wires it up once:
//
//	func TestFaults(t *testing.T)    { faulttest.Run(t, env) }
//	func TestFaultChild(t *testing.T) { faulttest.Child(t, env) }
//
// TestFaultChild does nothing in a normal run; the process scenarios
// re-execute the test binary with it selected and an environment switch,
// so the leader they kill or pause is a separate process.
package faulttest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// Env is what the scenarios need from a store package.
type Env struct {
	// Server returns a server tied to t; private is true when the
	// scenarios stop, kill or restart it, so it must not be shared.
	Server func(t *testing.T, private bool) *testserver.Server
	// Open returns a new, independent store client for addr ("host:port"
	// of the server or of a Proxy in front of it), ready to use (schema
	// created). It must bound every call (dial and read timeouts of about
	// a second), or a stalled connection would hold a renew forever.
	Open func(t *testing.T, addr string) elector.Store
	// Write makes one write at a resource, fenced by term's token: it must
	// return an error wrapping elector.ErrLost, and change nothing, when
	// term is no longer the current term.
	Write func(ctx context.Context, s elector.Store, term elector.Term) error
	// Written returns the tokens of the writes that landed for lease name,
	// in the order the resource applied them.
	Written func(ctx context.Context, s elector.Store, name string) ([]uint64, error)
	// ChildTest is the name of the test that calls Child; default
	// "TestFaultChild".
	ChildTest string
}

// timing is the candidates' timing: a 2 s lease keeps every scenario
// within a few seconds and still holds on a heavily shared machine. The
// deadline comes 1.6 s after each successful renew is sent, and 4 renew
// attempts fit before it.
var timing = elector.Timing{
	LeaseDuration: 2 * time.Second,
	RenewInterval: 400 * time.Millisecond,
	RetryInterval: 250 * time.Millisecond,
	DriftBound:    200 * time.Millisecond,
	StopBudget:    200 * time.Millisecond,
}

// scenarioLimit bounds every wait in a scenario.
const scenarioLimit = 15 * time.Second

// Run runs every scenario as a subtest.
func Run(t *testing.T, env Env) {
	if env.ChildTest == "" {
		env.ChildTest = "TestFaultChild"
	}
	// One private server serves both outage scenarios, which leave it
	// running: starting a server is the slowest step on a busy machine.
	private := env.Server(t, true)
	t.Run("ServerRestart", func(t *testing.T) { testServerOutage(t, env, private, false) })
	t.Run("ServerKill9", func(t *testing.T) { testServerOutage(t, env, private, true) })
	t.Run("GracefulHandover", func(t *testing.T) { testGracefulHandover(t, env) })
	t.Run("ConnectionCut", func(t *testing.T) { testPartition(t, env, (*testserver.Proxy).Cut) })
	t.Run("ConnectionStall", func(t *testing.T) { testPartition(t, env, (*testserver.Proxy).Stall) })
	t.Run("LeaderKill9", func(t *testing.T) { testLeaderProcess(t, env, false) })
	t.Run("LeaderPauseResume", func(t *testing.T) { testLeaderProcess(t, env, true) })
}

// group runs in-process candidates and checks, on their shared clock, that
// no two leader contexts are ever live at once.
type group struct {
	t    *testing.T
	name string

	mu      sync.Mutex
	live    map[string]uint64 // identity -> token of a live leader context
	events  chan event
	maxSeen uint64
	trace   []string // what the candidates and the scenario did, for failures
}

// tracef notes a step; the trace is printed when the test fails.
func (g *group) tracef(format string, args ...any) {
	line := time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...)
	g.mu.Lock()
	g.trace = append(g.trace, line)
	g.mu.Unlock()
}

// event is one thing a candidate did, as the scenarios wait for it.
type event struct {
	who   string
	kind  string // "lead" (work started), "end" (work context ended), "write"
	token uint64
	cause error // why the work context ended; the write's result
	at    time.Time
}

func newGroup(t *testing.T) *group {
	g := &group{t: t, name: storetest.LeaseName(t), live: map[string]uint64{}, events: make(chan event, 1000)}
	t.Cleanup(func() {
		if t.Failed() {
			g.mu.Lock()
			t.Logf("trace of lease %s:\n%s", g.name, strings.Join(g.trace, "\n"))
			g.mu.Unlock()
		}
	})
	return g
}

func (g *group) record(e event) {
	e.at = time.Now()
	if e.kind != "write" || e.cause != nil {
		g.tracef("%v", e)
	}
	g.mu.Lock()
	switch e.kind {
	case "lead":
		for other, tok := range g.live {
			g.t.Errorf("%s leads with token %d while %s's context (token %d) is still live", e.who, e.token, other, tok)
		}
		if e.token <= g.maxSeen {
			g.t.Errorf("%s granted token %d; want > %d, the largest seen", e.who, e.token, g.maxSeen)
		}
		g.maxSeen = max(g.maxSeen, e.token)
		g.live[e.who] = e.token
	case "end":
		delete(g.live, e.who)
	}
	g.mu.Unlock()
	select {
	case g.events <- e:
	default:
		g.t.Errorf("event buffer full; dropped %+v", e)
	}
}

// current returns the candidate whose leader context is live, if any.
func (g *group) current() (who string, token uint64, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for w, tok := range g.live {
		return w, tok, true
	}
	return "", 0, false
}

// leaderBeforeFault returns the live leader just before a fault; want, if
// not empty, is who it must be for the scenario to make sense.
func (g *group) leaderBeforeFault(want string) (string, uint64) {
	g.t.Helper()
	who, tok, ok := g.current()
	if !ok || (want != "" && who != want) {
		g.t.Fatalf("before the fault the leader is %q (live %v), want %q: the term changed hands without a fault; is the machine overloaded?", who, ok, want)
	}
	return who, tok
}

// start runs a candidate named who on store s until stop is called or the
// test ends. While it leads it writes at the resource every 50 ms.
func (g *group) start(who string, s elector.Store, env Env) (stop func()) {
	c, err := elector.New(s, g.name, elector.WithIdentity(who), elector.WithTiming(timing),
		elector.WithEvents(func(e elector.Event) {
			g.tracef("%s elector %v token %d: %s (err %v)", who, e.Kind, e.Token, e.Reason, e.Err)
		}))
	if err != nil {
		g.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
			g.record(event{who: who, kind: "lead", token: l.Token()})
			// Recorded the moment the context ends, not when this loop
			// notices, which may be after a blocked write returns. The
			// loop records it too: AfterFunc's stop can win the race
			// against a cancellation still in progress, and then f never
			// runs.
			var once sync.Once
			end := func() {
				once.Do(func() { g.record(event{who: who, kind: "end", token: l.Token(), cause: context.Cause(ctx)}) })
			}
			stop := context.AfterFunc(ctx, end)
			defer stop()
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					end()
					return nil
				case <-tick.C:
					wctx, wcancel := context.WithTimeout(ctx, time.Second)
					err := env.Write(wctx, s, l.Term())
					wcancel()
					if ctx.Err() == nil {
						g.record(event{who: who, kind: "write", token: l.Token(), cause: err})
					}
				}
			}
		})
	}()
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(scenarioLimit):
			g.t.Errorf("candidate %s did not stop", who)
		}
	}
	g.t.Cleanup(stop)
	return stop
}

// wait returns the first event matching ok, failing the test after limit.
func (g *group) wait(what string, ok func(event) bool) event {
	g.t.Helper()
	limit := time.After(scenarioLimit)
	for {
		select {
		case e := <-g.events:
			if ok(e) {
				return e
			}
		case <-limit:
			g.t.Fatalf("no %s within %v", what, scenarioLimit)
		}
	}
}

func leads(e event) bool { return e.kind == "lead" }

// checkWritten fails the test unless the resource applied writes in token
// order: a write of an older term after a newer term's write means the
// fence failed.
func checkWritten(t *testing.T, env Env, s elector.Store, name string, want ...uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := env.Written(ctx, s, name)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for i, tok := range got {
		seen[tok] = true
		if i > 0 && tok < got[i-1] {
			t.Fatalf("resource applied a write of token %d after one of token %d: the fence let a stale leader write (all: %v)", tok, got[i-1], got)
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Fatalf("no write of token %d landed (all: %v)", w, got)
		}
	}
}

// testServerOutage: the server goes away for longer than a lease (a clean
// stop, or SIGKILL of the whole server) and comes back on the same port and
// data. The leader's context must end by its own deadline, during the
// outage, and afterwards a leader emerges with a larger token: the token
// counter survived.
func testServerOutage(t *testing.T, env Env, srv *testserver.Server, kill bool) {
	if !srv.Running() {
		t.Fatal("the private server is not running; the previous scenario failed to bring it back")
	}
	g := newGroup(t)
	g.start("a", env.Open(t, srv.Addr()), env)
	first := g.wait("first leader", leads)
	g.start("b", env.Open(t, srv.Addr()), env)
	g.wait("a write by the first leader", func(e event) bool { return e.kind == "write" && e.token == first.token && e.cause == nil })

	_, leader := g.leaderBeforeFault("")
	g.tracef("server going down (kill %v)", kill)
	down := time.Now()
	var err error
	if kill {
		err = srv.Kill()
	} else {
		err = srv.Stop()
	}
	if err != nil {
		t.Fatal(err)
	}
	end := g.wait("the leader's context to end during the outage", func(e event) bool { return e.kind == "end" && e.token == leader })
	if !errors.Is(end.cause, elector.ErrDeadlinePassed) {
		t.Errorf("leader context ended with %v; want ErrDeadlinePassed", end.cause)
	}
	// The deadline is at most the safe window after the server went down;
	// the slack only absorbs a loaded machine's late timers.
	if d := end.at.Sub(down); d > timing.SafeWindow()+time.Second {
		t.Errorf("leader context ended %v after the server went down; want within the safe window %v", d, timing.SafeWindow())
	}
	// Stay down past the lease, so the old term has expired by the
	// server's clock when it comes back.
	time.Sleep(timing.LeaseDuration - time.Since(down) + 200*time.Millisecond)
	up := time.Now()
	srv.Resume(t)
	next := g.wait("a leader after the server came back", leads)
	if next.token <= leader {
		t.Fatalf("token after recovery %d; want > %d (tokens went back)", next.token, leader)
	}
	t.Logf("leader token %d (first %d) -> %s token %d; %v after the server came back", leader, first.token, next.who, next.token, next.at.Sub(up).Round(time.Millisecond))
	g.wait("a write by the new leader", func(e event) bool { return e.kind == "write" && e.token == next.token && e.cause == nil })
	checkWritten(t, env, env.Open(t, srv.Addr()), g.name, first.token, next.token)
}

// testPartition: the leader reaches the server through a proxy that is cut
// (connections reset, new ones refused) or stalled (a black hole). Its renew
// fails, its context ends by its deadline, and only then does the standby,
// which reaches the server directly, take over with a larger token. After
// the network heals the old leader stays a standby.
func testPartition(t *testing.T, env Env, fault func(*testserver.Proxy)) {
	srv := env.Server(t, false)
	proxy := testserver.NewProxy(t, srv.Addr())
	g := newGroup(t)
	g.start("a", env.Open(t, proxy.Addr()), env)
	first := g.wait("first leader", leads)
	g.start("b", env.Open(t, srv.Addr()), env)
	g.wait("a write by the first leader", func(e event) bool { return e.kind == "write" && e.token == first.token && e.cause == nil })

	_, leader := g.leaderBeforeFault("a")
	g.tracef("fault on the proxy")
	fault(proxy)
	end := g.wait("the cut-off leader's context to end", func(e event) bool { return e.kind == "end" && e.token == leader })
	if !errors.Is(end.cause, elector.ErrDeadlinePassed) {
		t.Errorf("cut-off leader's context ended with %v; want ErrDeadlinePassed", end.cause)
	}
	next := g.wait("the standby to take over", leads)
	if next.who != "b" || next.token <= leader {
		t.Fatalf("took over: %s token %d; want b with a token > %d", next.who, next.token, leader)
	}
	if !end.at.Before(next.at) {
		t.Fatalf("old leader's context ended at %v, after the new leader started at %v", end.at, next.at)
	}
	t.Logf("old leader's context ended %v before the standby took over", next.at.Sub(end.at).Round(time.Millisecond))
	proxy.Heal()
	// Let the healed candidate compete for a few retry intervals: it must
	// not lead while b does (group.record checks that).
	time.Sleep(4 * timing.RetryInterval)
	g.wait("a write by the new leader", func(e event) bool { return e.kind == "write" && e.token == next.token && e.cause == nil })
	checkWritten(t, env, env.Open(t, srv.Addr()), g.name, first.token, next.token)
}

// String formats an event for failure messages.
func (e event) String() string {
	return fmt.Sprintf("%s %s token %d (%v)", e.who, e.kind, e.token, e.cause)
}

// testGracefulHandover: the leader's Run ends (a deploy): its work stops,
// it releases the term, and the standby, woken by the store's watch where
// it has one, takes over with a larger token without waiting for expiry.
func testGracefulHandover(t *testing.T, env Env) {
	srv := env.Server(t, false)
	g := newGroup(t)
	stopA := g.start("a", env.Open(t, srv.Addr()), env)
	first := g.wait("first leader", leads)
	g.start("b", env.Open(t, srv.Addr()), env)
	g.wait("a write by the first leader", func(e event) bool { return e.kind == "write" && e.token == first.token && e.cause == nil })

	_, leader := g.leaderBeforeFault("a")
	g.tracef("stopping a")
	stopped := time.Now()
	stopA()
	end := g.wait("the leader's context to end", func(e event) bool { return e.kind == "end" && e.token == leader })
	if !errors.Is(end.cause, context.Canceled) {
		t.Errorf("leader context ended with %v; want context.Canceled (a shutdown)", end.cause)
	}
	next := g.wait("the standby to take over", leads)
	if next.who != "b" || next.token <= leader {
		t.Fatalf("took over: %s token %d; want b with a token > %d", next.who, next.token, leader)
	}
	// Logged, not asserted: speed is measured in the stores' benchmarks.
	t.Logf("standby took over %v after the leader was stopped (lease %v)", next.at.Sub(stopped).Round(time.Millisecond), timing.LeaseDuration)
	g.wait("a write by the new leader", func(e event) bool { return e.kind == "write" && e.token == next.token && e.cause == nil })
	checkWritten(t, env, env.Open(t, srv.Addr()), g.name, first.token, next.token)
}
