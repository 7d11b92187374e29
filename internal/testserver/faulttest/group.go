package faulttest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

// What a candidate of a Group did, in Event.Kind.
const (
	Lead  = "lead"  // its work started: it leads
	End   = "end"   // its leader context ended
	Write = "write" // it made one write at the resource (Cause is the result)
)

// Event is one thing a Group's candidate did.
type Event struct {
	Who   string
	Kind  string // Lead, End or Write
	Token uint64
	// Cause is why the leader context ended (End) or the write's result
	// (Write).
	Cause error
	At    time.Time
	// Deadline is, for End, the lease's deadline when the context ended:
	// the moment the candidate's own clock gave the term up.
	Deadline time.Time
}

// String formats an event for failure messages.
func (e Event) String() string {
	return fmt.Sprintf("%s %s token %d (%v)", e.Who, e.Kind, e.Token, e.Cause)
}

// Leads matches the start of a term, for Group.Wait.
func Leads(e Event) bool { return e.Kind == Lead }

// Group runs elector candidates for one lease in this process, each
// writing at the store's resource (Env.Write) every 50 ms while it leads,
// and records what they do on one shared clock. It fails the test the
// moment a candidate leads while another one's leader context is still
// live, or is granted a token not above every token seen before. The
// scenarios use it; store packages use it for their own fault tests.
type Group struct {
	t     *testing.T
	name  string
	write func(ctx context.Context, s elector.Store, term elector.Term) error

	mu      sync.Mutex
	live    map[string]uint64 // identity -> token of a live leader context
	events  chan Event
	maxSeen uint64
	trace   []string // what the candidates and the test did, for failures
}

// NewGroup returns a group for a lease named after t, whose leaders write
// with env.Write. The trace of what happened is logged if t fails.
func NewGroup(t *testing.T, env Env) *Group {
	g := &Group{t: t, name: storetest.LeaseName(t), write: env.Write, live: map[string]uint64{}, events: make(chan Event, 1000)}
	t.Cleanup(func() {
		if t.Failed() {
			g.mu.Lock()
			t.Logf("trace of lease %s:\n%s", g.name, strings.Join(g.trace, "\n"))
			g.mu.Unlock()
		}
	})
	return g
}

// Name is the lease name the candidates compete for.
func (g *Group) Name() string { return g.name }

// Tracef notes a step; the trace is printed when the test fails.
func (g *Group) Tracef(format string, args ...any) {
	line := time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...)
	g.mu.Lock()
	g.trace = append(g.trace, line)
	g.mu.Unlock()
}

func (g *Group) record(e Event) {
	e.At = time.Now()
	if e.Kind != Write || e.Cause != nil {
		g.Tracef("%v", e)
	}
	g.mu.Lock()
	switch e.Kind {
	case Lead:
		for other, tok := range g.live {
			g.t.Errorf("%s leads with token %d while %s's context (token %d) is still live", e.Who, e.Token, other, tok)
		}
		if e.Token <= g.maxSeen {
			g.t.Errorf("%s granted token %d; want > %d, the largest seen", e.Who, e.Token, g.maxSeen)
		}
		g.maxSeen = max(g.maxSeen, e.Token)
		g.live[e.Who] = e.Token
	case End:
		delete(g.live, e.Who)
	}
	g.mu.Unlock()
	select {
	case g.events <- e:
	default:
		g.t.Errorf("event buffer full; dropped %+v", e)
	}
}

// Leader returns the candidate whose leader context is live, if any.
func (g *Group) Leader() (who string, token uint64, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for w, tok := range g.live {
		return w, tok, true
	}
	return "", 0, false
}

// leaderBeforeFault returns the live leader just before a fault; want, if
// not empty, is who it must be for the scenario to make sense.
func (g *Group) leaderBeforeFault(want string) (string, uint64) {
	g.t.Helper()
	who, tok, ok := g.Leader()
	if !ok || (want != "" && who != want) {
		g.t.Fatalf("before the fault the leader is %q (live %v), want %q: the term changed hands without a fault; is the machine overloaded?", who, ok, want)
	}
	return who, tok
}

// Start runs a candidate named who on store s, with Timing, until stop is
// called or the test ends. Its writes go through s too.
func (g *Group) Start(who string, s elector.Store) (stop func()) { return g.StartWriting(who, s, s) }

// StartWriting is Start with the candidate's writes going through w, a
// client of its own, so that they do not share s's connections.
func (g *Group) StartWriting(who string, s, w elector.Store) (stop func()) {
	c, err := elector.New(s, g.name, elector.WithIdentity(who), elector.WithTiming(timing),
		elector.WithEvents(func(e elector.Event) {
			g.Tracef("%s elector %v token %d: %s (err %v)", who, e.Kind, e.Token, e.Reason, e.Err)
		}))
	if err != nil {
		g.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
			g.record(Event{Who: who, Kind: Lead, Token: l.Token()})
			// Recorded the moment the context ends, not when this loop
			// notices, which may be after a blocked write returns. The
			// loop records it too: AfterFunc's stop can win the race
			// against a cancellation still in progress, and then f never
			// runs.
			var once sync.Once
			end := func() {
				once.Do(func() {
					g.record(Event{Who: who, Kind: End, Token: l.Token(), Cause: context.Cause(ctx), Deadline: l.Deadline()})
				})
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
					err := g.write(wctx, w, l.Term())
					wcancel()
					if ctx.Err() == nil {
						g.record(Event{Who: who, Kind: Write, Token: l.Token(), Cause: err})
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

// Wait returns the first event not yet waited past that matches ok,
// failing the test after 15 s.
func (g *Group) Wait(what string, ok func(Event) bool) Event {
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

// wroteOK matches a successful write of token's term.
func wroteOK(token uint64) func(Event) bool {
	return func(e Event) bool { return e.Kind == Write && e.Token == token && e.Cause == nil }
}
