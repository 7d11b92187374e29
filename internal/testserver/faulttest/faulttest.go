// Package faulttest runs the same fault scenarios against every elector
// store backed by a real server: server restart and crash, a cut or
// stalled connection between the leader and the server (until healed, for
// less than half the safe window, or for longer than the lease; or only the
// connections open at one moment, new ones working), and a leader
// process killed with SIGKILL or frozen with SIGSTOP and resumed.
//
// Each scenario runs real elector candidates (elector.New/Run) with a 2 s
// lease, so it ends within seconds. A store package wires it up once:
//
//	func TestFaults(t *testing.T)    { faulttest.Run(t, env) }
//	func TestFaultChild(t *testing.T) { faulttest.Child(t, env) }
//
// TestFaultChild does nothing in a normal run; the process scenarios
// re-execute the test binary with it selected and an environment switch,
// so the leader they kill or pause is a separate process.
//
// Group, the scenarios' recorder of candidates, serves a store package's
// own fault tests too.
package faulttest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// Server is a real server the scenarios run against. *testserver.Server
// is one, and so is every type embedding it (testserver.KubeAPIServer,
// EtcdServer, ...).
type Server interface {
	// Addr is the server's "host:port" on loopback.
	Addr() string
	Running() bool
	// Stop shuts the server down cleanly, Kill with SIGKILL; both keep
	// its data for Resume, which starts it again on the same port.
	Stop() error
	Kill() error
	Resume(t testing.TB)
}

// Env is what the scenarios need from a store package.
type Env struct {
	// Server returns a server tied to t; private is true when the
	// scenarios stop, kill or restart it, so it must not be shared.
	Server func(t *testing.T, private bool) Server
	// Target, if set, turns addr (the "host:port" of srv or of a Proxy in
	// front of it) into the string Open is given, in this process and in
	// the child process of the leader scenarios: for clients that need
	// more than an address, such as credentials. Nil means addr itself.
	Target func(srv Server, addr string) string
	// Open returns a new, independent store client for target (see
	// Target), ready to use (schema created). It must bound every call
	// (dial and read timeouts of about a second), or a stalled connection
	// would hold a renew forever.
	Open func(t *testing.T, target string) elector.Store
	// Write makes one write at a resource, fenced by term's token: it must
	// return an error wrapping elector.ErrLost, and change nothing, when
	// term is no longer the current term. A fence kept at the resource
	// (refusing tokens older than one it has seen) may instead refuse only
	// once a newer term has written there: the scenarios check fencing
	// only after the new leader wrote.
	Write func(ctx context.Context, s elector.Store, term elector.Term) error
	// Written returns the tokens of the writes that landed for lease name,
	// in the order the resource applied them. It may check more of the
	// store's own guarantees and return an error when one failed.
	Written func(ctx context.Context, s elector.Store, name string) ([]uint64, error)
	// ChildTest is the name of the test that calls Child; default
	// "TestFaultChild".
	ChildTest string
	// Skip maps the names of scenarios this store cannot run (see
	// Scenarios) to the reason, which the scenario reports with t.Skip.
	Skip map[string]string
}

// Scenarios are the names of the scenarios Run runs, as subtests.
var Scenarios = []string{"ServerRestart", "ServerKill9", "GracefulHandover", "ConnectionCut", "ConnectionStall",
	"StallShorterThanLease", "StallLongerThanLease", "HalfOpenStall", "LeaderKill9", "LeaderPauseResume"}

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

// Run runs every scenario as a subtest; the ones in env.Skip skip.
func Run(t *testing.T, env Env) {
	if env.ChildTest == "" {
		env.ChildTest = "TestFaultChild"
	}
	for name := range env.Skip {
		if !slices.Contains(Scenarios, name) {
			t.Fatalf("Env.Skip names %q, which is no scenario (%v)", name, Scenarios)
		}
	}
	// One private server serves both outage scenarios, which leave it
	// running: starting a server is the slowest step on a busy machine.
	// None is started when both are skipped.
	var private Server
	if !skipped(env, "ServerRestart") || !skipped(env, "ServerKill9") {
		private = env.Server(t, true)
	}
	scenarios := map[string]func(t *testing.T){
		"ServerRestart":         func(t *testing.T) { testServerOutage(t, env, private, false) },
		"ServerKill9":           func(t *testing.T) { testServerOutage(t, env, private, true) },
		"GracefulHandover":      func(t *testing.T) { testGracefulHandover(t, env) },
		"ConnectionCut":         func(t *testing.T) { testPartition(t, env, (*testserver.Proxy).Cut) },
		"ConnectionStall":       func(t *testing.T) { testPartition(t, env, (*testserver.Proxy).Stall) },
		"StallShorterThanLease": func(t *testing.T) { testStallShort(t, env) },
		"StallLongerThanLease":  func(t *testing.T) { testStallLong(t, env) },
		"HalfOpenStall":         func(t *testing.T) { testHalfOpenStall(t, env) },
		"LeaderKill9":           func(t *testing.T) { testLeaderProcess(t, env, false) },
		"LeaderPauseResume":     func(t *testing.T) { testLeaderProcess(t, env, true) },
	}
	for _, name := range Scenarios {
		t.Run(name, func(t *testing.T) {
			if reason, ok := env.Skip[name]; ok {
				t.Skip(reason)
			}
			scenarios[name](t)
		})
	}
}

func skipped(env Env, name string) bool {
	_, ok := env.Skip[name]
	return ok
}

// open is env.Open for a client of srv reaching it at addr.
func open(t *testing.T, env Env, srv Server, addr string) elector.Store {
	return env.Open(t, target(env, srv, addr))
}

func target(env Env, srv Server, addr string) string {
	if env.Target == nil {
		return addr
	}
	return env.Target(srv, addr)
}

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

// startPair starts candidate a, reaching srv at addrA, and once it leads
// and has written, the standby b, reaching srv directly. It returns a's
// first lead and the function that stops a.
func startPair(t *testing.T, env Env, g *Group, srv Server, addrA string) (Event, func()) {
	t.Helper()
	stopA := g.Start("a", open(t, env, srv, addrA))
	first := g.Wait("first leader", Leads)
	g.Start("b", open(t, env, srv, srv.Addr()))
	g.Wait("a write by the first leader", wroteOK(first.Token))
	return first, stopA
}

// handover waits for the leader context of token leader to end, with
// cause, and then for b to lead with a larger token.
func handover(t *testing.T, g *Group, leader uint64, cause error) (end, next Event) {
	t.Helper()
	end = g.Wait("the leader's context to end", func(e Event) bool { return e.Kind == End && e.Token == leader })
	if !errors.Is(end.Cause, cause) {
		t.Errorf("leader context ended with %v; want %v", end.Cause, cause)
	}
	next = g.Wait("the standby to take over", Leads)
	if next.Who != "b" || next.Token <= leader {
		t.Fatalf("took over: %s token %d; want b with a token > %d", next.Who, next.Token, leader)
	}
	return end, next
}

// testServerOutage: the server goes away for longer than a lease (a clean
// stop, or SIGKILL of the whole server) and comes back on the same port and
// data. The leader's context must end by its own deadline, during the
// outage, and afterwards a leader emerges with a larger token: the token
// counter survived.
func testServerOutage(t *testing.T, env Env, srv Server, kill bool) {
	if !srv.Running() {
		t.Fatal("the private server is not running; the previous scenario failed to bring it back")
	}
	g := NewGroup(t, env)
	first, _ := startPair(t, env, g, srv, srv.Addr())

	_, leader := g.leaderBeforeFault("")
	g.Tracef("server going down (kill %v)", kill)
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
	end := g.Wait("the leader's context to end during the outage", func(e Event) bool { return e.Kind == End && e.Token == leader })
	if !errors.Is(end.Cause, elector.ErrDeadlinePassed) {
		t.Errorf("leader context ended with %v; want ErrDeadlinePassed", end.Cause)
	}
	// The deadline is at most the safe window after the server went down;
	// the slack only absorbs a loaded machine's late timers.
	if d := end.At.Sub(down); d > timing.SafeWindow()+time.Second {
		t.Errorf("leader context ended %v after the server went down; want within the safe window %v", d, timing.SafeWindow())
	}
	// Stay down past the lease, so the old term has expired by the
	// server's clock when it comes back.
	time.Sleep(timing.LeaseDuration - time.Since(down) + 200*time.Millisecond)
	up := time.Now()
	srv.Resume(t)
	next := g.Wait("a leader after the server came back", Leads)
	if next.Token <= leader {
		t.Fatalf("token after recovery %d; want > %d (tokens went back)", next.Token, leader)
	}
	t.Logf("leader token %d (first %d) -> %s token %d; %v after the server came back", leader, first.Token, next.Who, next.Token, next.At.Sub(up).Round(time.Millisecond))
	g.Wait("a write by the new leader", wroteOK(next.Token))
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, next.Token)
}

// testPartition: the leader reaches the server through a proxy that is cut
// (connections reset, new ones refused) or stalled (a black hole). Its renew
// fails, its context ends by its deadline, and only then does the standby,
// which reaches the server directly, take over with a larger token. After
// the network heals the old leader stays a standby.
func testPartition(t *testing.T, env Env, fault func(*testserver.Proxy)) {
	srv := env.Server(t, false)
	proxy := testserver.NewProxy(t, srv.Addr())
	g := NewGroup(t, env)
	first, _ := startPair(t, env, g, srv, proxy.Addr())

	_, leader := g.leaderBeforeFault("a")
	g.Tracef("fault on the proxy")
	fault(proxy)
	end, next := handover(t, g, leader, elector.ErrDeadlinePassed)
	if !end.At.Before(next.At) {
		t.Fatalf("old leader's context ended at %v, after the new leader started at %v", end.At, next.At)
	}
	t.Logf("old leader's context ended %v before the standby took over", next.At.Sub(end.At).Round(time.Millisecond))
	proxy.Heal()
	// Let the healed candidate compete for a few retry intervals: it must
	// not lead while b does (Group.record checks that).
	time.Sleep(4 * timing.RetryInterval)
	g.Wait("a write by the new leader", wroteOK(next.Token))
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, next.Token)
}

// testGracefulHandover: the leader's Run ends (a deploy): its work stops,
// it releases the term, and the standby, woken by the store's watch where
// it has one, takes over with a larger token without waiting for expiry.
func testGracefulHandover(t *testing.T, env Env) {
	srv := env.Server(t, false)
	g := NewGroup(t, env)
	first, stopA := startPair(t, env, g, srv, srv.Addr())

	_, leader := g.leaderBeforeFault("a")
	g.Tracef("stopping a")
	stopped := time.Now()
	stopA()
	_, next := handover(t, g, leader, context.Canceled)
	// Logged, not asserted: speed is measured in the stores' benchmarks.
	t.Logf("standby took over %v after the leader was stopped (lease %v)", next.At.Sub(stopped).Round(time.Millisecond), timing.LeaseDuration)
	g.Wait("a write by the new leader", wroteOK(next.Token))
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, first.Token, next.Token)
}

// checkRead fails the test unless a fresh client reads term token of
// holder as the lease's live term.
func checkRead(t *testing.T, s elector.Store, name, holder string, token uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rec, err := s.Read(ctx, name)
	if err != nil || !rec.Held || rec.Term.Holder != holder || rec.Term.Token != token {
		t.Fatalf("Read = %+v, %v; want %s's term, token %d, held", rec, err, holder, token)
	}
}
