package etcdstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// faultTiming is the shortest consistent timing etcd allows: a 2 s lease (its
// minimum), renewed every 500 ms, so a fault test runs for seconds.
func faultTiming() elector.Timing {
	return elector.Timing{
		LeaseDuration: 2 * time.Second,
		RenewInterval: 500 * time.Millisecond,
		RetryInterval: 200 * time.Millisecond,
		DriftBound:    200 * time.Millisecond,
		StopBudget:    200 * time.Millisecond,
	}
}

// leaderTerm is one term as the work saw it.
type leaderTerm struct {
	lease elector.Lease
	start time.Time
	end   time.Time // when the leader context ended; zero while running
	cause error
}

// terms records every term a candidate's work ran, in order.
type terms struct {
	mu      sync.Mutex
	all     []*leaderTerm
	changed chan struct{} // receives after every start and end
}

func newTerms() *terms { return &terms{changed: make(chan struct{}, 1)} }

func (r *terms) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// work is the leader's work: it holds the term until its context ends.
func (r *terms) work(ctx context.Context, l elector.Lease) error {
	lt := &leaderTerm{lease: l, start: time.Now()}
	r.mu.Lock()
	r.all = append(r.all, lt)
	r.mu.Unlock()
	r.notify()
	<-ctx.Done()
	r.mu.Lock()
	lt.end, lt.cause = time.Now(), context.Cause(ctx)
	r.mu.Unlock()
	r.notify()
	return nil
}

// wait polls cond, under the lock, until it holds or ctx ends.
func (r *terms) wait(t *testing.T, ctx context.Context, what string, cond func(all []*leaderTerm) bool) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := cond(r.all)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

func (r *terms) snapshot() []leaderTerm {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]leaderTerm, len(r.all))
	for i, lt := range r.all {
		out[i] = *lt
	}
	return out
}

// runCandidate runs an elector candidate on s until the test ends.
func runCandidate(t *testing.T, s elector.Store, name, id string) *terms {
	t.Helper()
	rec := newTerms()
	c, err := elector.New(s, name, elector.WithIdentity(id), elector.WithTiming(faultTiming()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx, rec.work)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("candidate %s did not stop", id)
		}
	})
	return rec
}

// deletions records when etcd deletes key, seen through a direct client.
func deletions(t *testing.T, ctx context.Context, c *clientv3.Client, key string) func() []time.Time {
	t.Helper()
	var mu sync.Mutex
	var at []time.Time
	wch := c.Watch(ctx, key)
	go func() {
		for wr := range wch {
			now := time.Now()
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete {
					mu.Lock()
					at = append(at, now)
					mu.Unlock()
				}
			}
		}
	}()
	// Make sure the watch is registered before the test goes on.
	if _, err := c.Put(ctx, key+"-sync", "x"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	return func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Time(nil), at...)
	}
}

// TestConnectionLossEndsLeaderBeforeExpiry puts a loopback proxy between
// the leader and etcd and breaks it: by reset (Cut) and by silence (Stall).
// The leader's renews fail, its work context ends by its own deadline before
// etcd expires the lease, and the standby then takes over with a higher
// token.
func TestConnectionLossEndsLeaderBeforeExpiry(t *testing.T) {
	for _, mode := range []string{"cut", "stall"} {
		t.Run(mode, func(t *testing.T) {
			e := testserver.NewEtcd(t)
			p := testserver.NewProxy(t, e.Endpoint())
			ctx := testCtx(t, 30*time.Second)
			direct := newClient(t, e.Endpoint())
			gone := deletions(t, ctx, direct, New(direct).Key("job"))

			a := runCandidate(t, New(newClient(t, p.Addr())), "job", "a")
			a.wait(t, ctx, "a to lead", func(all []*leaderTerm) bool { return len(all) == 1 })
			b := runCandidate(t, New(direct), "job", "b")
			time.Sleep(time.Second) // a renews twice through the proxy; b stands by
			if got := b.snapshot(); len(got) != 0 {
				t.Fatalf("b led while a was healthy: %+v", got)
			}

			if mode == "cut" {
				p.Cut()
			} else {
				p.Stall()
			}
			b.wait(t, ctx, "b to take over", func(all []*leaderTerm) bool { return len(all) == 1 })
			at := a.snapshot()[0]
			bt := b.snapshot()[0]
			if at.end.IsZero() {
				t.Fatalf("b leads (token %d) while a's context (token %d) is still live", bt.lease.Token(), at.lease.Token())
			}
			if !errors.Is(at.cause, elector.ErrDeadlinePassed) {
				t.Errorf("a's context ended with %v, want ErrDeadlinePassed", at.cause)
			}
			if bt.lease.Token() <= at.lease.Token() {
				t.Errorf("b's token %d not above a's %d", bt.lease.Token(), at.lease.Token())
			}
			dels := gone()
			if len(dels) == 0 {
				t.Fatal("etcd never deleted a's key, yet b leads")
			}
			// The deletion is seen through a watch, so a little after etcd
			// made it. a's deadline (when the elector cancels its context)
			// must come before that; so must the moment the work saw the
			// cancellation, unless this machine stalled a's goroutines.
			if dl := at.lease.Deadline(); !dl.Before(dels[0]) {
				t.Fatalf("a's deadline %v is after etcd expired its lease at %v", dl, dels[0])
			}
			if !at.end.Before(dels[0]) {
				t.Fatalf("a's context ended at %v, after etcd expired its lease at %v", at.end, dels[0])
			}
			if !at.end.Before(bt.start) {
				t.Fatalf("a's context ended at %v, after b started at %v", at.end, bt.start)
			}
			t.Logf("a's context ended %v before etcd deleted its key, %v before b started",
				dels[0].Sub(at.end).Round(time.Millisecond), bt.start.Sub(at.end).Round(time.Millisecond))

			// After the network heals a keeps competing, as a standby.
			p.Heal()
			time.Sleep(time.Second)
			if got := a.snapshot(); len(got) != 1 {
				t.Fatalf("a took a second term while b leads: %+v", got)
			}
		})
	}
}

// firstLeader waits until one of rs leads and returns its first term.
func firstLeader(t *testing.T, ctx context.Context, rs ...*terms) (leaderTerm, *terms) {
	t.Helper()
	for {
		for _, r := range rs {
			if ts := r.snapshot(); len(ts) > 0 {
				return ts[0], r
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("nobody leads")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestEtcdCrashLeaderReemerges kills etcd under a leader and brings it back
// on the same data directory. While etcd is down the leader's context ends
// by its deadline; afterwards a leader emerges again, with a higher token.
func TestEtcdCrashLeaderReemerges(t *testing.T) {
	e := testserver.NewEtcd(t)
	ctx := testCtx(t, 60*time.Second)
	a := runCandidate(t, New(newClient(t, e.Endpoint())), "job", "a")
	b := runCandidate(t, New(newClient(t, e.Endpoint())), "job", "b")
	first, old := firstLeader(t, ctx, a, b)

	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	old.wait(t, ctx, "the leader's context to end while etcd is down", func(all []*leaderTerm) bool {
		return !all[0].end.IsZero()
	})
	if got := old.snapshot()[0]; !errors.Is(got.cause, elector.ErrDeadlinePassed) {
		t.Fatalf("leader context ended with %v, want ErrDeadlinePassed", got.cause)
	}
	e.Resume(t)

	// Whoever leads next, a or b (the old leader may reclaim its own
	// lease), does so with a higher token.
	var next leaderTerm
	deadline := time.After(30 * time.Second)
	for next.lease.Token() == 0 {
		for _, r := range []*terms{a, b} {
			for _, lt := range r.snapshot() {
				if lt.lease.Token() != first.lease.Token() && lt.end.IsZero() {
					next = lt
				}
			}
		}
		select {
		case <-deadline:
			t.Fatal("no leader after etcd came back")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if next.lease.Token() <= first.lease.Token() {
		t.Fatalf("leader after the crash has token %d, not above %d", next.lease.Token(), first.lease.Token())
	}
	t.Logf("token %d (%s) before the crash, %d (%s) after", first.lease.Token(), first.lease.Holder(), next.lease.Token(), next.lease.Holder())
}
