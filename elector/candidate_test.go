package elector_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// nopStore is for tests that never call the store.
type nopStore struct{}

func (nopStore) Acquire(context.Context, string, string, time.Duration) (elector.Term, error) {
	return elector.Term{}, errors.New("nopStore")
}
func (nopStore) Renew(context.Context, elector.Term, time.Duration) error {
	return errors.New("nopStore")
}
func (nopStore) Release(context.Context, elector.Term) error { return errors.New("nopStore") }
func (nopStore) Read(context.Context, string) (elector.Record, error) {
	return elector.Record{}, errors.New("nopStore")
}

// pollOnly hides the Watcher of the store it wraps.
type pollOnly struct{ elector.Store }

// faultStore lets a test slow down or fail calls of a real memstore.
type faultStore struct {
	*memstore.Store
	mu           sync.Mutex
	acquireDelay time.Duration // before the store sees the Acquire
	renewErr     error         // returned instead of renewing
	// appliesLate makes Acquire apply and answer even after the caller's
	// context expired, like a server that got the request just in time.
	appliesLate bool
}

func (f *faultStore) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	f.mu.Lock()
	d, late := f.acquireDelay, f.appliesLate
	f.mu.Unlock()
	time.Sleep(d)
	if late {
		ctx = context.WithoutCancel(ctx)
	}
	return f.Store.Acquire(ctx, name, holder, ttl)
}

func (f *faultStore) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	f.mu.Lock()
	err := f.renewErr
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return f.Store.Renew(ctx, t, ttl)
}

// events records a candidate's events.
type events struct {
	mu  sync.Mutex
	all []elector.Event
}

func (e *events) add(ev elector.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) of(k elector.EventKind) []elector.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []elector.Event
	for _, ev := range e.all {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// term records one run of the work function.
type term struct {
	lease      elector.Lease
	start, end time.Time
	cause      error
	endedByCtx bool
}

// recorder is a work function that records its terms and runs until its
// context ends (or until stop is closed).
type recorder struct {
	mu    sync.Mutex
	terms []*term
	start chan elector.Lease
}

func newRecorder() *recorder { return &recorder{start: make(chan elector.Lease, 100)} }

func (r *recorder) work(ctx context.Context, l elector.Lease) error {
	tm := &term{lease: l, start: time.Now()}
	r.mu.Lock()
	r.terms = append(r.terms, tm)
	r.mu.Unlock()
	r.start <- l
	<-ctx.Done()
	r.mu.Lock()
	tm.end, tm.cause, tm.endedByCtx = time.Now(), context.Cause(ctx), true
	r.mu.Unlock()
	return nil
}

func (r *recorder) all() []term {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]term, len(r.terms))
	for i, t := range r.terms {
		out[i] = *t
	}
	return out
}

var testTiming = elector.DefaultTiming()

func newCandidate(t *testing.T, s elector.Store, id string, ev *events, opts ...elector.Option) *elector.Candidate {
	t.Helper()
	opts = append([]elector.Option{elector.WithIdentity(id), elector.WithTiming(testTiming), elector.WithEvents(ev.add)}, opts...)
	c, err := elector.New(s, "lease", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runBg runs c until the returned stop is called; stop waits for Run.
func runBg(t *testing.T, c *elector.Candidate, work elector.Work) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, work) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v; want context.Canceled", err)
			}
		})
	}
}

func TestResignReleasesAfterWorkReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var ev events
		c := newCandidate(t, s, "a", &ev)
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		l := <-rec.start
		if l.Token() == 0 || l.Holder() != "a" || l.Name() != "lease" {
			t.Fatalf("lease %+v", l)
		}
		if want := time.Now().Add(testTiming.SafeWindow()); !l.Deadline().Equal(want) {
			t.Errorf("deadline %v; want acquire send time + safe window = %v", l.Deadline(), want)
		}
		if cur, ok := c.Lease(); !ok || cur.Token() != l.Token() {
			t.Errorf("Lease() = %v, %v while leading", cur, ok)
		}
		time.Sleep(12 * time.Second) // two renews
		if n := len(ev.of(elector.Renewed)); n != 2 {
			t.Errorf("%d renews in 12s; want 2 (every 5s)", n)
		}
		if want := time.Now().Add(testTiming.SafeWindow() - 2*time.Second); !l.Deadline().Equal(want) {
			t.Errorf("deadline after renew at 10s: %v; want %v", l.Deadline(), want)
		}
		if err := c.Resign(context.Background()); err != nil {
			t.Fatalf("Resign while leading: %v; want nil once released", err)
		}
		synctest.Wait()
		terms := rec.all()
		if len(terms) != 1 || !errors.Is(terms[0].cause, elector.ErrResigned) {
			t.Fatalf("terms %+v; want one ended by ErrResigned", terms)
		}
		if _, ok := c.Lease(); ok {
			t.Error("Lease() still reported after Resign")
		}
		rel := ev.of(elector.Released)
		if len(rel) != 1 || rel[0].Token != l.Token() || rel[0].Reason != "resigned" {
			t.Fatalf("released events %+v", rel)
		}
		if r, _ := s.Read(context.Background(), "lease"); r.Held {
			t.Errorf("lease still held after resign: %+v", r)
		}
		// It competes again after the resign pause and gets a new token.
		l2 := <-rec.start
		if l2.Token() <= l.Token() {
			t.Errorf("token after re-acquire %d; want > %d", l2.Token(), l.Token())
		}
		stop()
		if r, _ := s.Read(context.Background(), "lease"); r.Held {
			t.Errorf("lease still held after Run ended: %+v", r)
		}
	})
}

func TestDeadlineAnchoredAtSendTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := &faultStore{Store: memstore.New(), acquireDelay: 3 * time.Second, renewErr: errors.New("network down")}
		var ev events
		c := newCandidate(t, fs, "a", &ev)
		rec := newRecorder()
		sent := time.Now()
		stop := runBg(t, c, rec.work)
		defer stop()
		l := <-rec.start
		if got := time.Since(sent); got != 3*time.Second {
			t.Fatalf("work started %v after the acquire was sent; want 3s", got)
		}
		if want := sent.Add(testTiming.SafeWindow()); !l.Deadline().Equal(want) {
			t.Fatalf("deadline %v after send; want %v (send time + safe window, not response time)",
				l.Deadline().Sub(sent), testTiming.SafeWindow())
		}
		time.Sleep(time.Minute)
		terms := rec.all()
		if len(terms) == 0 || !terms[0].endedByCtx {
			t.Fatalf("work not cancelled: %+v", terms)
		}
		if got, want := terms[0].end.Sub(sent), testTiming.SafeWindow(); got != want {
			t.Errorf("leader context ended %v after the acquire was sent; want %v", got, want)
		}
		if !errors.Is(terms[0].cause, elector.ErrDeadlinePassed) {
			t.Errorf("cause %v; want ErrDeadlinePassed", terms[0].cause)
		}
		if n := len(ev.of(elector.RenewFailed)); n < elector.MinRenewAttempts {
			t.Errorf("%d failed renews before the deadline; want >= %d", n, elector.MinRenewAttempts)
		}
		if lost := ev.of(elector.Lost); len(lost) == 0 || lost[0].Token != l.Token() {
			t.Errorf("lost events %+v", lost)
		}
		// The missed deadline is released at once, so the lease is free
		// long before the store would expire it.
		if len(ev.of(elector.Released)) == 0 {
			t.Errorf("term not released after the missed deadline; events %+v", ev.all)
		}
	})
}

func TestLossCancelsWorkAndCompetesAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memserver.New(nil)
		var ev events
		c := newCandidate(t, s, "a", &ev)
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		l := <-rec.start
		// The store forgets the lease (a volatile store restarted) and
		// another holder takes it: the next renew finds the term lost.
		s.LoseLeases()
		other, err := s.Acquire(context.Background(), "lease", "b", 8*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(testTiming.RenewInterval)
		synctest.Wait()
		terms := rec.all()
		if len(terms) != 1 || !errors.Is(terms[0].cause, elector.ErrLost) {
			t.Fatalf("terms %+v; want one ended with ErrLost", terms)
		}
		if got := terms[0].end.Sub(terms[0].start); got != testTiming.RenewInterval {
			t.Errorf("work cancelled %v after start; want at the first renew (%v)", got, testTiming.RenewInterval)
		}
		lost := ev.of(elector.Lost)
		if len(lost) != 1 || lost[0].Token != l.Token() || !errors.Is(lost[0].Err, elector.ErrLost) {
			t.Fatalf("lost events %+v", lost)
		}
		if n := len(ev.of(elector.IdentityConflict)); n != 0 {
			t.Errorf("%d identity conflicts for distinct identities", n)
		}
		// b's 8s lease expires; a takes over again with a newer token.
		l2 := <-rec.start
		if l2.Token() <= other.Token {
			t.Errorf("token %d after b's %d", l2.Token(), other.Token)
		}
		stop()
	})
}

func TestIdentityConflictDetected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var ev1, ev2 events
		c1 := newCandidate(t, s, "same", &ev1)
		c2 := newCandidate(t, s, "same", &ev2)
		r1, r2 := newRecorder(), newRecorder()
		stop1 := runBg(t, c1, r1.work)
		defer stop1()
		<-r1.start
		time.Sleep(time.Second)
		stop2 := runBg(t, c2, r2.work) // a reclaim: same identity
		defer stop2()
		<-r2.start
		time.Sleep(10 * time.Second)
		conf := ev1.of(elector.IdentityConflict)
		if len(conf) == 0 {
			t.Fatalf("no IdentityConflict for two live processes sharing an identity; events %+v", ev1.all)
		}
		stop1()
		stop2()
	})
}

func TestStoreOutageRetriedUntilRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memserver.New(nil)
		s.SetDown(true)
		var ev events
		c := newCandidate(t, s, "a", &ev)
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		time.Sleep(2 * time.Minute)
		failed := ev.of(elector.AcquireFailed)
		if len(failed) < 5 || !errors.Is(failed[0].Err, memserver.ErrUnavailable) {
			t.Fatalf("%d AcquireFailed events in 2 min of outage: %+v", len(failed), failed)
		}
		// Backoff is capped at the lease duration (plus jitter).
		for i := 1; i < len(failed); i++ {
			if gap := failed[i].Time.Sub(failed[i-1].Time); gap > testTiming.LeaseDuration*6/5 {
				t.Errorf("retry gap %v exceeds the capped backoff", gap)
			}
		}
		s.SetDown(false)
		recovered := time.Now()
		<-rec.start
		if d := time.Since(recovered); d > testTiming.LeaseDuration*6/5 {
			t.Errorf("acquired %v after the store recovered", d)
		}
	})
}

func TestGracefulHandover(t *testing.T) {
	for _, watch := range []bool{true, false} {
		name := map[bool]string{true: "watch", false: "poll"}[watch]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var s elector.Store = memstore.New()
				if !watch {
					s = pollOnly{s}
				}
				var eva, evb events
				ra, rb := newRecorder(), newRecorder()
				stopA := runBg(t, newCandidate(t, s, "a", &eva), ra.work)
				defer stopA()
				<-ra.start
				b := newCandidate(t, s, "b", &evb)
				stopB := runBg(t, b, rb.work)
				defer stopB()
				time.Sleep(7 * time.Second)
				synctest.Wait()
				resigned := time.Now()
				stopA() // a graceful shutdown releases the lease
				<-rb.start
				took := time.Since(resigned)
				limit := testTiming.GracefulHandover(watch)
				if took > limit {
					t.Errorf("handover took %v; the model promises <= %v", took, limit)
				}
				if watch && took != 0 {
					t.Errorf("watched handover took %v of virtual time; want immediate", took)
				}
				stopB()
			})
		})
	}
}

func TestWorkOverrunReportedAndNotDoubled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := &faultStore{Store: memstore.New(), renewErr: errors.New("network down")}
		var ev events
		c := newCandidate(t, fs, "a", &ev)
		var running, maxRunning, runs int
		var mu sync.Mutex
		release := make(chan struct{})
		stop := runBg(t, c, func(ctx context.Context, l elector.Lease) error {
			mu.Lock()
			running++
			runs++
			maxRunning = max(maxRunning, running)
			first := runs == 1
			mu.Unlock()
			<-ctx.Done()
			if first {
				<-release // ignores its context for a long time
			}
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		})
		defer stop()
		time.Sleep(time.Minute)
		over := ev.of(elector.WorkOverran)
		if len(over) != 1 {
			t.Fatalf("%d WorkOverran events; want 1", len(over))
		}
		if got, want := over[0].Time.Sub(ev.of(elector.Acquired)[0].Time), testTiming.SafeWindow()+testTiming.StopBudget; got != want {
			t.Errorf("overrun reported %v after acquire; want at deadline + stop budget = %v", got, want)
		}
		if n := len(ev.of(elector.Acquired)); n != 1 {
			t.Errorf("%d terms acquired while the first work still ran; want 1", n)
		}
		close(release)
		time.Sleep(time.Minute)
		mu.Lock()
		defer mu.Unlock()
		if maxRunning != 1 || runs < 2 {
			t.Errorf("max %d works at once over %d runs; want 1 at a time and competing again after the overrun", maxRunning, runs)
		}
	})
}

func TestSlowEventCallbackDoesNotDelayDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := &faultStore{Store: memstore.New(), renewErr: errors.New("network down")}
		slow := func(e elector.Event) {
			if e.Kind == elector.RenewFailed {
				time.Sleep(time.Minute) // a logger stuck on a full pipe, say
			}
		}
		c, err := elector.New(fs, "lease", elector.WithIdentity("a"), elector.WithTiming(testTiming), elector.WithEvents(slow))
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		l := <-rec.start
		start := time.Now()
		time.Sleep(testTiming.SafeWindow() + time.Second)
		terms := rec.all()
		if !terms[0].endedByCtx {
			t.Fatalf("leader context still live %v after acquiring, past its deadline", time.Since(start))
		}
		if got := terms[0].end.Sub(start); got != testTiming.SafeWindow() || !terms[0].end.Equal(l.Deadline()) {
			t.Errorf("leader context ended after %v; want exactly the safe window %v", got, testTiming.SafeWindow())
		}
	})
}

func TestRunMisuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ev events
		c := newCandidate(t, memstore.New(), "a", &ev)
		if err := c.Run(t.Context(), nil); err == nil {
			t.Error("Run accepted nil work")
		}
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		<-rec.start
		if err := c.Run(t.Context(), rec.work); !errors.Is(err, elector.ErrAlreadyRunning) {
			t.Errorf("second concurrent Run = %v; want ErrAlreadyRunning", err)
		}
		stop()
		if err := c.Resign(context.Background()); !errors.Is(err, elector.ErrNotLeading) {
			t.Errorf("Resign after Run returned: %v; want ErrNotLeading", err)
		}
		// Run can be called again after it returned.
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- c.Run(ctx, rec.work) }()
		<-rec.start
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("second Run returned %v", err)
		}
	})
}
