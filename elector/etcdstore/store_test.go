package etcdstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// newClient connects a fresh client to endpoint; each one is an independent
// connection, as separate candidate processes would have.
func newClient(t testing.TB, endpoint string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: 5 * time.Second,
		// The client logs every reconnect attempt; the fault tests cause
		// many on purpose.
		Logger: zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startEtcd starts a real etcd and returns it with a function opening
// independent stores on it.
func startEtcd(t *testing.T) (*testserver.EtcdServer, func(t *testing.T) *Store) {
	t.Helper()
	e := testserver.NewEtcd(t)
	return e, func(t *testing.T) *Store { return New(newClient(t, e.Endpoint())) }
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestAcquireIsExclusive(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	a, b := open(t), open(t)
	ctx := testCtx(t, 20*time.Second)

	ta, err := a.Acquire(ctx, "job", "a", 3*time.Second)
	if err != nil {
		t.Fatalf("a acquire: %v", err)
	}
	if ta.Token == 0 || ta.Holder != "a" || ta.Name != "job" {
		t.Fatalf("term %+v", ta)
	}
	if _, err := b.Acquire(ctx, "job", "b", 3*time.Second); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("b acquire while a holds: err = %v, want ErrHeld", err)
	}
	rec, err := b.Read(ctx, "job")
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if !rec.Held || rec.Term != ta || rec.Remaining <= 0 || rec.Remaining > 3*time.Second {
		t.Fatalf("read = %+v, want held term %+v with 0 < remaining <= 3s", rec, ta)
	}
	// Other names are independent.
	if _, err := b.Acquire(ctx, "other", "b", 3*time.Second); err != nil {
		t.Fatalf("b acquire other name: %v", err)
	}
	if err := b.Renew(ctx, ta, 3*time.Second); err != nil {
		t.Fatalf("renew from another client of a's live term: %v", err)
	}
}

func TestReadNeverGranted(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	rec, err := open(t).Read(testCtx(t, 10*time.Second), "nobody")
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if rec != (elector.Record{}) {
		t.Fatalf("read of a never granted lease = %+v, want zero", rec)
	}
}

func TestReclaimStartsNewTerm(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	a1, a2, b := open(t), open(t), open(t)
	ctx := testCtx(t, 20*time.Second)

	t1, err := a1.Acquire(ctx, "job", "a", 2*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	// a2 is the same identity restarted: it may take its lease back at once.
	t2, err := a2.Acquire(ctx, "job", "a", 2*time.Second)
	if err != nil {
		t.Fatalf("reclaim: %v", err)
	}
	if t2.Token <= t1.Token {
		t.Fatalf("reclaim token %d not above %d", t2.Token, t1.Token)
	}
	if err := a1.Renew(ctx, t1, 2*time.Second); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("renew of the replaced term: %v, want ErrLost", err)
	}
	if err := a1.Release(ctx, t1); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("release of the replaced term: %v, want ErrLost", err)
	}
	if _, err := b.Acquire(ctx, "job", "b", 2*time.Second); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("stale release must not free the lease: b acquire err = %v", err)
	}
	if err := a2.Renew(ctx, t2, 2*time.Second); err != nil {
		t.Fatalf("renew of the new term: %v", err)
	}
}

func TestExpiryAndRenew(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	a, b := open(t), open(t)
	ctx := testCtx(t, 30*time.Second)

	ta, err := a.Acquire(ctx, "job", "a", 2*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	// Renewing every 700 ms keeps a 2 s lease alive well past 2 s.
	for i := 0; i < 5; i++ {
		time.Sleep(700 * time.Millisecond)
		if err := a.Renew(ctx, ta, 2*time.Second); err != nil {
			t.Fatalf("renew %d: %v", i, err)
		}
	}
	if _, err := b.Acquire(ctx, "job", "b", 2*time.Second); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("b acquire while renewed: %v", err)
	}
	// Stop renewing: etcd expires the lease and deletes the key by itself.
	tb := waitAcquire(t, ctx, b, "job", "b", 2*time.Second)
	if tb.Token <= ta.Token {
		t.Fatalf("token after expiry %d not above %d", tb.Token, ta.Token)
	}
	if err := a.Renew(ctx, ta, 2*time.Second); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("renew after expiry: %v, want ErrLost", err)
	}
	rec, err := a.Read(ctx, "job")
	if err != nil || !rec.Held || rec.Term != tb {
		t.Fatalf("read = %+v, %v; want held by %+v", rec, err, tb)
	}
}

// waitAcquire retries Acquire until it succeeds, as a polling standby would.
func waitAcquire(t *testing.T, ctx context.Context, s *Store, name, holder string, ttl time.Duration) elector.Term {
	t.Helper()
	for {
		tm, err := s.Acquire(ctx, name, holder, ttl)
		if err == nil {
			return tm
		}
		select {
		case <-ctx.Done():
			t.Fatalf("acquire %s: %v (last error %v)", holder, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestReleaseWakesWatcher(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	a, b := open(t), open(t)
	ctx := testCtx(t, 20*time.Second)

	ta, err := a.Acquire(ctx, "job", "a", 10*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	wake, err := b.Watch(ctx, "job")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if err := a.Release(ctx, ta); err != nil {
		t.Fatalf("release: %v", err)
	}
	select {
	case _, ok := <-wake:
		if !ok {
			t.Fatal("watch closed instead of waking")
		}
	case <-ctx.Done():
		t.Fatal("no wakeup after release")
	}
	rec, err := b.Read(ctx, "job")
	if err != nil || rec.Held || rec.Term != ta || rec.Remaining != 0 {
		t.Fatalf("read after release = %+v, %v; want not held, last term %+v", rec, err, ta)
	}
	// The 10 s lease was released, so b need not wait for it to expire.
	tb, err := b.Acquire(ctx, "job", "b", 2*time.Second)
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if tb.Token <= ta.Token {
		t.Fatalf("token %d not above %d", tb.Token, ta.Token)
	}
	if err := a.Release(ctx, ta); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("second release: %v, want ErrLost", err)
	}
}

func TestWatchClosesWithContext(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	ctx, cancel := context.WithCancel(testCtx(t, 10*time.Second))
	wake, err := open(t).Watch(ctx, "job")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	cancel()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-wake:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("watch channel not closed after its context ended")
		}
	}
}

func TestTTLRoundsUp(t *testing.T) {
	t.Parallel()
	e, open := startEtcd(t)
	s := open(t)
	raw := newClient(t, e.Endpoint())
	ctx := testCtx(t, 20*time.Second)
	granted := func(tm elector.Term) int64 {
		t.Helper()
		g, err := raw.Get(ctx, s.Key(tm.Name))
		if err != nil || len(g.Kvs) != 1 {
			t.Fatalf("get: %v %+v", err, g)
		}
		ttl, err := raw.TimeToLive(ctx, clientv3.LeaseID(g.Kvs[0].Lease))
		if err != nil {
			t.Fatalf("time to live: %v", err)
		}
		return ttl.GrantedTTL
	}
	for _, c := range []struct {
		ttl  time.Duration
		want int64
	}{
		{100 * time.Millisecond, 2}, // etcd's minimum
		{1500 * time.Millisecond, 2},
		{2 * time.Second, 2},
		{2001 * time.Millisecond, 3},
		{7 * time.Second, 7},
	} {
		tm, err := s.Acquire(ctx, "job", "a", c.ttl)
		if err != nil {
			t.Fatalf("acquire ttl %v: %v", c.ttl, err)
		}
		if got := granted(tm); got != c.want {
			t.Errorf("ttl %v granted %d s, want %d s", c.ttl, got, c.want)
		}
		if err := s.Release(ctx, tm); err != nil {
			t.Fatalf("release: %v", err)
		}
	}
	if _, err := s.Acquire(ctx, "job", "a", 0); err == nil {
		t.Error("acquire with ttl 0 succeeded")
	}

	// Renewing with a longer ttl than granted moves the key to a longer
	// lease and keeps the token; renewing with a shorter one keeps the
	// longer lease (rounding up).
	tm, err := s.Acquire(ctx, "job", "a", 2*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if err := s.Renew(ctx, tm, 5*time.Second); err != nil {
		t.Fatalf("renew longer: %v", err)
	}
	if got := granted(tm); got != 5 {
		t.Fatalf("after renew with 5s granted %d s", got)
	}
	if err := s.Renew(ctx, tm, 2*time.Second); err != nil {
		t.Fatalf("renew shorter: %v", err)
	}
	rec, err := s.Read(ctx, "job")
	if err != nil || !rec.Held || rec.Term != tm || rec.Remaining < 4*time.Second || rec.Remaining > 5*time.Second {
		t.Fatalf("read = %+v, %v; want term %+v held with 4s..5s remaining", rec, err, tm)
	}
}

func TestFence(t *testing.T) {
	t.Parallel()
	e, open := startEtcd(t)
	a, b := open(t), open(t)
	raw := newClient(t, e.Endpoint())
	ctx := testCtx(t, 20*time.Second)

	ta, err := a.Acquire(ctx, "job", "a", 2*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if _, err := a.PutFenced(ctx, ta, "resource", "from a"); err != nil {
		t.Fatalf("fenced put by the leader: %v", err)
	}
	if err := a.Release(ctx, ta); err != nil {
		t.Fatalf("release: %v", err)
	}
	// Ended without a successor: still refused.
	if _, err := a.PutFenced(ctx, ta, "resource", "late a"); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("fenced put after release: %v, want ErrLost", err)
	}
	tb, err := b.Acquire(ctx, "job", "b", 2*time.Second)
	if err != nil {
		t.Fatalf("b acquire: %v", err)
	}
	if _, err := a.PutFenced(ctx, ta, "resource", "stale a"); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("fenced put with stale token: %v, want ErrLost", err)
	}
	if _, err := a.PutFenced(ctx, elector.Term{Name: "job"}, "resource", "zero"); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("fenced put with zero term: %v, want ErrLost", err)
	}
	if _, err := b.PutFenced(ctx, tb, "resource", "from b"); err != nil {
		t.Fatalf("fenced put by the new leader: %v", err)
	}
	g, err := raw.Get(ctx, "resource")
	if err != nil || len(g.Kvs) != 1 || string(g.Kvs[0].Value) != "from b" {
		t.Fatalf("resource = %+v, %v; want \"from b\"", g, err)
	}
}

func TestZeroTermIsLost(t *testing.T) {
	t.Parallel()
	_, open := startEtcd(t)
	s := open(t)
	ctx := testCtx(t, 10*time.Second)
	zero := elector.Term{Name: "job", Holder: "a"}
	if err := s.Renew(ctx, zero, 2*time.Second); !errors.Is(err, elector.ErrLost) {
		t.Errorf("renew zero term: %v", err)
	}
	if err := s.Release(ctx, zero); !errors.Is(err, elector.ErrLost) {
		t.Errorf("release zero term: %v", err)
	}
}
