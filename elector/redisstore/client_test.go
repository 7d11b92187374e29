package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestNewChecksClient: New refuses go-redis clients that retry scripts or
// ignore context deadlines; before issue 17 it accepted a default client.
func TestNewChecksClient(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    redis.UniversalClient
		want []string // substrings of the error; none: accepted
	}{
		{"default client", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), []string{"MaxRetries 3", "ContextTimeoutEnabled is false"}},
		{"retries off only", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}), []string{"ContextTimeoutEnabled is false"}},
		{"context only", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}), []string{"MaxRetries 3"}},
		{"as required", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, ContextTimeoutEnabled: true}), nil},
		{"cluster default", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}), []string{"MaxRedirects 3", "ContextTimeoutEnabled"}},
		{"cluster as required", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, MaxRedirects: -1, ContextTimeoutEnabled: true}), nil},
		{"ring default", redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}}), []string{"MaxRetries 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.c.Close()
			_, err := New(tc.c)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("New refused a client configured as required: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New accepted the client; want an error mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestStalledRequestEndsAtItsDeadline is why New requires
// ContextTimeoutEnabled: on a stalled connection (a partition without
// resets) a renew with a 300 ms context returns at its deadline; without
// the setting go-redis waits for its ReadTimeout (3 s here), which is how a
// leader's work outlived its cancelled context by seconds.
func TestStalledRequestEndsAtItsDeadline(t *testing.T) {
	proxy := testserver.NewProxy(t, testserver.Redis(t).Addr())
	prefix := testPrefix(t)
	client := func(ctxTimeouts bool) *Store {
		c := redis.NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: -1, ReadTimeout: 3 * time.Second,
			ContextTimeoutEnabled: ctxTimeouts})
		t.Cleanup(func() { c.Close() })
		return &Store{c: c, prefix: prefix} // bypasses New's check for the contrast
	}
	checked, unchecked := client(true), client(false)
	name := "stall"
	term, err := checked.Acquire(ctxT(t), name, "a", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := unchecked.Renew(ctxT(t), term, 30*time.Second); err != nil { // opens its connection
		t.Fatal(err)
	}
	proxy.Stall()
	defer proxy.Heal()
	took := func(s *Store) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := s.Renew(ctx, term, 30*time.Second); err == nil {
			t.Fatal("Renew succeeded through a stalled connection")
		}
		return time.Since(start)
	}
	if d := took(checked); d > time.Second {
		t.Errorf("with ContextTimeoutEnabled a stalled renew took %v; want about its 300 ms deadline", d)
	}
	if d := took(unchecked); d < 2*time.Second {
		t.Errorf("without ContextTimeoutEnabled a stalled renew took %v; the contrast needs go-redis to wait for its ReadTimeout", d)
	} else {
		t.Logf("without ContextTimeoutEnabled the stalled renew took %v (ReadTimeout 3 s)", d.Round(time.Millisecond))
	}
}
