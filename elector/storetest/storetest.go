// Package storetest is the conformance suite every elector.Store backend runs
// against its real server:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) elector.Store { return newClient(t) })
//	}
//
// open may be called several times per subtest; every call must return an
// independent client (its own connection or pool) to the SAME backend, so two
// clients model two competing processes. Each subtest uses its own lease names
// (the subtest name plus a random suffix), so subtests never interfere and the
// suite can share a server with other tests.
//
// RunRestart adds the one rule a suite on a running server cannot check:
// tokens survive a restart (or kill -9) of the server.
//
// Timing: the suite uses 1-2 s TTLs and allows a store to round a TTL up to
// whole seconds (Granularity): a lease renewed at s must still be held at
// s + 0.8 ttl and free by s + ttl + Granularity; elsewhere expiry may take up
// to six times the ttl before the suite fails. It takes about 12 s per store
// against a local server.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// Run runs the conformance suite. See the package documentation.
func Run(t *testing.T, open func(t *testing.T) elector.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, open func(t *testing.T) elector.Store)
	}{
		{"MutualExclusion", testMutualExclusion},
		{"ReleaseFreesAtOnce", testReleaseFreesAtOnce},
		{"Expiry", testExpiry},
		{"RenewExtends", testRenewExtends},
		{"RenewHoldsFullTTL", testRenewHoldsFullTTL},
		{"TokensStrictlyIncrease", testTokensStrictlyIncrease},
		{"TermScopedRenewRelease", testTermScoped},
		{"ReclaimBySameHolder", testReclaim},
		{"ReadChangesNothing", testReadChangesNothing},
		{"CancelledContext", testCancelledContext},
		{"ConcurrentAcquire", testConcurrentAcquire},
		{"Watch", testWatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// callTimeout bounds every single store call the suite makes.
const callTimeout = 5 * time.Second

// longTTL is long enough that no test waits for it to expire.
const longTTL = 30 * time.Second

// LeaseName returns a lease name unique to this test run: the test name with
// anything but letters, digits and '-' replaced, plus a random suffix. Backends
// can use it in their own tests.
func LeaseName(t *testing.T) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) > 60 {
		name = name[len(name)-60:]
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		t.Fatalf("random suffix: %v", err)
	}
	return "storetest-" + name + "-" + hex.EncodeToString(suffix[:])
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

func mustAcquire(t *testing.T, s elector.Store, name, holder string, ttl time.Duration) elector.Term {
	t.Helper()
	term, err := s.Acquire(callCtx(t), name, holder, ttl)
	if err != nil {
		t.Fatalf("Acquire(%q, %q): %v", name, holder, err)
	}
	if term.Name != name || term.Holder != holder || term.Token == 0 {
		t.Fatalf("Acquire(%q, %q) = %+v; want that name and holder and a non-zero token", name, holder, term)
	}
	return term
}

func mustRead(t *testing.T, s elector.Store, name string) elector.Record {
	t.Helper()
	rec, err := s.Read(callCtx(t), name)
	if err != nil {
		t.Fatalf("Read(%q): %v", name, err)
	}
	return rec
}

func wantErrIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v; want one wrapping %v", what, err, target)
	}
}

func wantHeldBy(t *testing.T, s elector.Store, term elector.Term) {
	t.Helper()
	rec := mustRead(t, s, term.Name)
	if !rec.Held || rec.Term != term {
		t.Fatalf("Read = %+v; want held by %+v", rec, term)
	}
	if rec.Remaining <= 0 {
		t.Fatalf("Read = %+v; want positive Remaining while held", rec)
	}
}

// waitFree polls Read until the lease is no longer held, failing after limit.
func waitFree(t *testing.T, s elector.Store, name string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		rec := mustRead(t, s, name)
		if !rec.Held {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("lease %q still held after %v: %+v", name, limit, rec)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testMutualExclusion(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	ta := mustAcquire(t, a, name, "holder-a", longTTL)
	_, err := b.Acquire(callCtx(t), name, "holder-b", longTTL)
	wantErrIs(t, "second holder's Acquire of a live lease", err, elector.ErrHeld)
	wantHeldBy(t, b, ta)
	if err := a.Renew(callCtx(t), ta, longTTL); err != nil {
		t.Fatalf("holder's Renew after a failed competitor: %v", err)
	}
	wantHeldBy(t, a, ta)
}

func testReleaseFreesAtOnce(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	ta := mustAcquire(t, a, name, "holder-a", longTTL)
	if err := a.Release(callCtx(t), ta); err != nil {
		t.Fatalf("Release: %v", err)
	}
	rec := mustRead(t, b, name)
	if rec.Held || rec.Remaining != 0 {
		t.Fatalf("Read after Release = %+v; want not held, zero Remaining", rec)
	}
	tb := mustAcquire(t, b, name, "holder-b", longTTL)
	if tb.Token <= ta.Token {
		t.Fatalf("token after release %d; want > %d", tb.Token, ta.Token)
	}
}

func testExpiry(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	const ttl = time.Second
	start := time.Now()
	ta := mustAcquire(t, a, name, "holder-a", ttl)
	// A store may round up but never down: well inside the ttl the lease must
	// still be held. Only judge if the client was fast enough to ask in time.
	time.Sleep(ttl / 4)
	_, err := b.Acquire(callCtx(t), name, "holder-b", ttl)
	if time.Since(start) < ttl*3/4 {
		wantErrIs(t, "Acquire well inside the ttl", err, elector.ErrHeld)
	}
	// Rounding up to whole seconds may double a 1 s ttl; allow for that and
	// for a slow server.
	waitFree(t, b, name, 6*ttl)
	if since := time.Since(start); since < ttl {
		t.Fatalf("lease expired after %v; a store must not round the ttl (%v) down", since, ttl)
	}
	wantErrIs(t, "Renew of an expired term", a.Renew(callCtx(t), ta, ttl), elector.ErrLost)
	tb := mustAcquire(t, b, name, "holder-b", longTTL)
	if tb.Token <= ta.Token {
		t.Fatalf("token after expiry %d; want > %d", tb.Token, ta.Token)
	}
	wantErrIs(t, "Release of an expired term", a.Release(callCtx(t), ta), elector.ErrLost)
	wantHeldBy(t, a, tb)
}

func testRenewExtends(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	// A 2 s ttl renewed every 500 ms leaves 1.5 s for a slow round trip
	// on a loaded machine before the lease could lapse.
	const ttl = 2 * time.Second
	ta := mustAcquire(t, a, name, "holder-a", ttl)
	// Renew for 1.5 ttls: the lease must never lapse.
	end := time.Now().Add(ttl * 3 / 2)
	for time.Now().Before(end) {
		time.Sleep(500 * time.Millisecond)
		if err := a.Renew(callCtx(t), ta, ttl); err != nil {
			t.Fatalf("Renew of a live term: %v", err)
		}
		_, err := b.Acquire(callCtx(t), name, "holder-b", ttl)
		wantErrIs(t, "competitor's Acquire while renewed", err, elector.ErrHeld)
	}
	wantHeldBy(t, b, ta)
}

// Granularity is how far past the ttl a store may keep a lease: servers that
// count in whole seconds (etcd, Kubernetes) round a ttl up by less than one.
const Granularity = time.Second

// testRenewHoldsFullTTL checks what the candidate's deadline rests on: a
// renew sent at s holds the lease until s + ttl by the store's clock, no
// shorter (a store that extends by less admits a second leader while the
// first still believes it leads) and not much longer (failover would wait).
func testRenewHoldsFullTTL(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	const ttl = 2 * time.Second
	ta := mustAcquire(t, a, name, "holder-a", ttl)
	// Renew well after the acquire, so a store that keeps the acquire's
	// expiry instead of extending it is caught too.
	time.Sleep(ttl / 4)
	sent := time.Now()
	if err := a.Renew(callCtx(t), ta, ttl); err != nil {
		t.Fatalf("Renew of a live term: %v", err)
	}
	// The competitor looks at once, as a polling standby would: a store that
	// judges expiry by observation (kubestore) counts from when it saw the
	// renewed record.
	wantHeldBy(t, b, ta)
	time.Sleep(time.Until(sent.Add(ttl * 8 / 10)))
	asked := time.Now()
	_, err := b.Acquire(callCtx(t), name, "holder-b", ttl)
	if asked.Sub(sent) < ttl*9/10 { // judge only if the client asked in time
		if err == nil {
			t.Fatalf("competitor acquired the lease %v after a renew sent with ttl %v: the renew did not hold for the ttl",
				asked.Sub(sent).Round(time.Millisecond), ttl)
		}
		wantErrIs(t, "competitor's Acquire at 0.8 ttl after a renew", err, elector.ErrHeld)
	} else {
		t.Logf("competitor asked only %v after the renew; not judged", asked.Sub(sent))
	}
	waitFree(t, b, name, 6*ttl)
	if late := time.Since(sent); late > ttl+Granularity+250*time.Millisecond {
		t.Fatalf("lease freed %v after the last renew was sent; want by ttl (%v) + granularity (%v)", late.Round(time.Millisecond), ttl, Granularity)
	}
}

func testTokensStrictlyIncrease(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	var last uint64
	next := func(what string, term elector.Term) {
		t.Helper()
		if term.Token <= last {
			t.Fatalf("%s: token %d; want > %d", what, term.Token, last)
		}
		last = term.Token
	}
	t1 := mustAcquire(t, a, name, "holder-a", longTTL)
	next("first acquire", t1)
	if err := a.Release(callCtx(t), t1); err != nil {
		t.Fatalf("Release: %v", err)
	}
	t2 := mustAcquire(t, a, name, "holder-a", longTTL)
	next("same holder after release", t2)
	t3 := mustAcquire(t, a, name, "holder-a", time.Second)
	next("reclaim by same holder", t3)
	waitFree(t, b, name, 6*time.Second)
	// A term that expired is over, also for its own holder: a paused
	// process still holding t3 must not pass a fence after a re-grant.
	t3b := mustAcquire(t, a, name, "holder-a", time.Second)
	next("same holder after its term expired", t3b)
	waitFree(t, b, name, 6*time.Second)
	t4 := mustAcquire(t, b, name, "holder-b", longTTL)
	next("other holder after expiry", t4)
	if err := b.Release(callCtx(t), t4); err != nil {
		t.Fatalf("Release: %v", err)
	}
	t5 := mustAcquire(t, a, name, "holder-a", longTTL)
	next("first holder again", t5)
	// Tokens are per name: another name's grants do not have to share them,
	// but must not disturb this name's sequence.
	mustAcquire(t, b, name+"-other", "holder-b", longTTL)
	t6 := mustAcquire(t, a, name, "holder-a", longTTL)
	next("after another name's grant", t6)
}

func testTermScoped(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	ta := mustAcquire(t, a, name, "holder-a", longTTL)

	wrongToken := ta
	wrongToken.Token++
	wantErrIs(t, "Renew with a wrong token", b.Renew(callCtx(t), wrongToken, longTTL), elector.ErrLost)
	wantErrIs(t, "Release with a wrong token", b.Release(callCtx(t), wrongToken), elector.ErrLost)
	wrongHolder := ta
	wrongHolder.Holder = "holder-b"
	wantErrIs(t, "Renew by a wrong holder", b.Renew(callCtx(t), wrongHolder, longTTL), elector.ErrLost)
	wantErrIs(t, "Release by a wrong holder", b.Release(callCtx(t), wrongHolder), elector.ErrLost)
	neverGranted := elector.Term{Name: name + "-never", Holder: "holder-a", Token: 1}
	wantErrIs(t, "Renew of a never-granted lease", a.Renew(callCtx(t), neverGranted, longTTL), elector.ErrLost)
	wantHeldBy(t, b, ta)

	if err := a.Release(callCtx(t), ta); err != nil {
		t.Fatalf("Release: %v", err)
	}
	wantErrIs(t, "second Release of the same term", a.Release(callCtx(t), ta), elector.ErrLost)
	wantErrIs(t, "Renew after Release", a.Renew(callCtx(t), ta, longTTL), elector.ErrLost)
	if rec := mustRead(t, b, name); rec.Held {
		t.Fatalf("Renew after Release revived the lease: %+v", rec)
	}

	tb := mustAcquire(t, b, name, "holder-b", longTTL)
	wantErrIs(t, "old term's Renew under a new holder", a.Renew(callCtx(t), ta, longTTL), elector.ErrLost)
	wantErrIs(t, "old term's Release under a new holder", a.Release(callCtx(t), ta), elector.ErrLost)
	wantHeldBy(t, a, tb)
}

func testReclaim(t *testing.T, open func(t *testing.T) elector.Store) {
	a, restarted, c := open(t), open(t), open(t)
	name := LeaseName(t)
	t1 := mustAcquire(t, a, name, "holder-a", longTTL)
	// A restarted process with the same identity reclaims at once.
	t2 := mustAcquire(t, restarted, name, "holder-a", longTTL)
	if t2.Token <= t1.Token {
		t.Fatalf("reclaim token %d; want > %d", t2.Token, t1.Token)
	}
	wantErrIs(t, "Renew of the term replaced by a reclaim", a.Renew(callCtx(t), t1, longTTL), elector.ErrLost)
	wantErrIs(t, "Release of the term replaced by a reclaim", a.Release(callCtx(t), t1), elector.ErrLost)
	if err := restarted.Renew(callCtx(t), t2, longTTL); err != nil {
		t.Fatalf("Renew of the reclaimed term: %v", err)
	}
	_, err := c.Acquire(callCtx(t), name, "holder-c", longTTL)
	wantErrIs(t, "other holder's Acquire after a reclaim", err, elector.ErrHeld)
	wantHeldBy(t, c, t2)
}

func testReadChangesNothing(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	if rec := mustRead(t, b, name); rec != (elector.Record{}) {
		t.Fatalf("Read of a never-granted lease = %+v; want the zero Record", rec)
	}
	if rec := mustRead(t, b, name); rec != (elector.Record{}) {
		t.Fatalf("second Read of a never-granted lease = %+v; want the zero Record", rec)
	}
	const ttl = time.Second
	start := time.Now()
	ta := mustAcquire(t, a, name, "holder-a", ttl)
	var prev time.Duration = 3 * ttl
	for i := 0; i < 3; i++ {
		rec := mustRead(t, b, name)
		if !rec.Held || rec.Term != ta {
			t.Fatalf("Read = %+v; want held by %+v", rec, ta)
		}
		if rec.Remaining > prev+50*time.Millisecond {
			t.Fatalf("Remaining grew from %v to %v across Reads: Read must not renew", prev, rec.Remaining)
		}
		prev = rec.Remaining
		time.Sleep(100 * time.Millisecond)
	}
	// Reads did not extend the lease: it expires as if nobody read it.
	waitFree(t, b, name, 6*ttl)
	if since := time.Since(start); since < ttl {
		t.Fatalf("lease expired after %v; ttl %v", since, ttl)
	}
	rec := mustRead(t, b, name)
	if rec.Held || rec.Remaining != 0 {
		t.Fatalf("Read after expiry = %+v; want not held, zero Remaining", rec)
	}
	if rec.Token != 0 && rec.Token != ta.Token {
		t.Fatalf("Read after expiry reports token %d; want %d (the last term) or 0", rec.Token, ta.Token)
	}
	tb := mustAcquire(t, b, name, "holder-b", longTTL)
	if tb.Token <= ta.Token {
		t.Fatalf("token %d after Reads; want > %d", tb.Token, ta.Token)
	}
}

func testCancelledContext(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	name := LeaseName(t)
	done, cancel := context.WithCancel(context.Background())
	cancel()

	if _, err := a.Acquire(done, name, "holder-a", longTTL); err == nil {
		t.Fatal("Acquire with a cancelled context succeeded; want an error")
	}
	if rec := mustRead(t, b, name); rec.Held {
		t.Fatalf("Acquire with a cancelled context took the lease: %+v", rec)
	}
	if _, err := a.Read(done, name); err == nil {
		t.Fatal("Read with a cancelled context succeeded; want an error")
	}

	ta := mustAcquire(t, a, name, "holder-a", longTTL)
	if err := a.Release(done, ta); err == nil {
		t.Fatal("Release with a cancelled context succeeded; want an error")
	}
	wantHeldBy(t, b, ta)
	if err := a.Renew(done, ta, time.Second); err == nil {
		t.Fatal("Renew with a cancelled context succeeded; want an error")
	}
	// The failed Renew must not have shortened the 30 s lease to 1 s.
	if rec := mustRead(t, b, name); rec.Remaining < 10*time.Second {
		t.Fatalf("Renew with a cancelled context changed the lease: %+v", rec)
	}
	tb, err := b.Acquire(done, name, "holder-b", longTTL)
	if err == nil {
		t.Fatalf("competitor's Acquire with a cancelled context succeeded: %+v", tb)
	}
	next := mustAcquire(t, a, name, "holder-a", longTTL)
	if next.Token <= ta.Token {
		t.Fatalf("token after cancelled calls %d; want > %d", next.Token, ta.Token)
	}
}

func testConcurrentAcquire(t *testing.T, open func(t *testing.T) elector.Store) {
	const n = 8
	clients := make([]elector.Store, n)
	for i := range clients {
		clients[i] = open(t)
	}
	for round := 0; round < 3; round++ {
		name := LeaseName(t)
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			terms   = make([]elector.Term, n)
			errs    = make([]error, n)
			holders = make([]string, n)
		)
		for i := range clients {
			holders[i] = "holder-" + string(rune('a'+i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				terms[i], errs[i] = clients[i].Acquire(callCtx(t), name, holders[i], longTTL)
			}()
		}
		close(start)
		wg.Wait()
		var winners []elector.Term
		for i, err := range errs {
			switch {
			case err == nil:
				winners = append(winners, terms[i])
			case errors.Is(err, elector.ErrHeld):
			default:
				t.Fatalf("round %d: Acquire by %s: %v; want success or ErrHeld", round, holders[i], err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %+v; want exactly one", round, len(winners), winners)
		}
		wantHeldBy(t, clients[0], winners[0])
	}
}

func testWatch(t *testing.T, open func(t *testing.T) elector.Store) {
	a, b := open(t), open(t)
	w, ok := b.(elector.Watcher)
	if !ok {
		t.Skipf("%T does not implement elector.Watcher", b)
	}
	name := LeaseName(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx, name)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	ta := mustAcquire(t, a, name, "holder-a", longTTL)
	// Whether Acquire wakes watchers is up to the store; drain its wakeup
	// so the next wait proves the Release woke the watcher.
	drain(ch)
	if err := a.Release(callCtx(t), ta); err != nil {
		t.Fatalf("Release: %v", err)
	}
	waitWake(t, ch, "Release")
	// A wakeup is a hint; the standby confirms with Acquire.
	mustAcquire(t, b, name, "holder-b", longTTL)

	cancel()
	deadline := time.After(callTimeout)
	for {
		select {
		case _, open := <-ch:
			if !open {
				return
			}
		case <-deadline:
			t.Fatal("watch channel not closed after its context ended")
		}
	}
}

func waitWake(t *testing.T, ch <-chan struct{}, after string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("watch channel closed; want a wakeup after %s", after)
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("no watch wakeup within 2s after %s", after)
	}
}

// drain empties pending wakeups briefly so the next wait sees a fresh one.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}
