package redisstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func TestMain(m *testing.M) {
	// go-redis logs every failed dial; the fault tests cause hundreds.
	redis.SetLogger(quietLogger{})
	testserver.Main(m)
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// newClient opens a client to addr, closed when the test ends. Short
// timeouts keep fault tests bounded.
func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:         addr,
		DialTimeout:  time.Second,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   -1, // a retried script could act twice; the caller retries
		// Context deadlines bound each request (a stalled connection).
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// mustNew is New for tests, failing on a misconfigured client.
func mustNew(tb testing.TB, c redis.UniversalClient, opts ...Option) *Store {
	tb.Helper()
	s, err := New(c, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testPrefix keeps tests apart on the shared server.
func testPrefix(t *testing.T) string {
	return testserver.UniqueName("test") + ":"
}

func TestConformance(t *testing.T) {
	addr := testserver.Redis(t).Addr()
	prefix := testPrefix(t)
	storetest.Run(t, func(t *testing.T) elector.Store {
		return mustNew(t, newClient(t, addr), WithPrefix(prefix))
	})
}

func TestKeysLayout(t *testing.T) {
	addr := testserver.Redis(t).Addr()
	c := newClient(t, addr)
	s := mustNew(t, c, WithPrefix(testPrefix(t)))
	name := storetest.LeaseName(t)
	term, err := s.Acquire(ctxT(t), name, "a b", time.Minute) // a holder with a space
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Read(ctxT(t), name)
	if err != nil || rec.Term != term || !rec.Held {
		t.Fatalf("Read = %+v, %v; want held by %+v", rec, err, term)
	}
	if err := s.Release(ctxT(t), term); err != nil {
		t.Fatal(err)
	}
	keys := s.keys(name)
	if n, _ := c.Exists(ctxT(t), keys[0]).Result(); n != 0 {
		t.Fatal("lease key still exists after Release")
	}
	got, err := c.HGet(ctxT(t), keys[1], "token").Uint64()
	if err != nil || got != term.Token {
		t.Fatalf("counter after Release = %d, %v; want %d", got, err, term.Token)
	}
	for _, k := range keys {
		if !strings.Contains(k, "{"+name+"}") {
			t.Fatalf("key %q lacks the hash tag", k)
		}
	}
}

func TestSetFenced(t *testing.T) {
	addr := testserver.Redis(t).Addr()
	c := newClient(t, addr)
	s := mustNew(t, c, WithPrefix(testPrefix(t)))
	ctx := ctxT(t)
	name := storetest.LeaseName(t)
	key := testPrefix(t) + s.FenceTag(name) + ":data"
	old, err := s.Acquire(ctx, name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFenced(ctx, old, key, "old", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, old); err != nil {
		t.Fatal(err)
	}
	next, err := s.Acquire(ctx, name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFenced(ctx, next, key, "new", time.Minute); err != nil {
		t.Fatal(err)
	}
	err = s.SetFenced(ctx, old, key, "stale", 0)
	if !errors.Is(err, elector.ErrLost) {
		t.Fatalf("stale fenced set: %v; want ErrLost", err)
	}
	if v, _ := c.Get(ctx, key).Result(); v != "new" {
		t.Fatalf("value %q; want the new term's", v)
	}
	if ttl, _ := c.PTTL(ctx, key).Result(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("fenced key ttl %v; want (0, 1m]", ttl)
	}
}

// TestTokenFloor: a token counter lost (here deleted by hand, as a restart
// without persistence would lose it) does not send tokens back.
func TestTokenFloor(t *testing.T) {
	addr := testserver.Redis(t).Addr()
	c := newClient(t, addr)
	s := mustNew(t, c, WithPrefix(testPrefix(t)))
	name := storetest.LeaseName(t)
	first, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Del(ctxT(t), s.keys(name)...).Err(); err != nil {
		t.Fatal(err)
	}
	second, err := s.Acquire(ctxT(t), name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if second.Token <= first.Token {
		t.Fatalf("token %d after losing the counter; want > %d", second.Token, first.Token)
	}
}

func TestTTLRoundsUp(t *testing.T) {
	for _, c := range []struct {
		ttl  time.Duration
		want int64
	}{{time.Millisecond, 1}, {time.Millisecond + 1, 2}, {1500 * time.Microsecond, 2}, {time.Second, 1000}, {1, 1}} {
		if got := ttlMillis(c.ttl); got != c.want {
			t.Errorf("ttlMillis(%v) = %d; want %d (a store may round up, never down)", c.ttl, got, c.want)
		}
	}
}
