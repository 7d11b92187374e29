package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// faultEnv runs the shared fault scenarios on etcd. The resource is a set
// of keys under writesPrefix, one per write, each put with PutFenced; the
// order of their create revisions is the order etcd applied them.
var faultEnv = faulttest.Env{
	Server: func(t *testing.T, private bool) faulttest.Server {
		if private {
			return testserver.NewEtcd(t)
		}
		return testserver.Etcd(t)
	},
	Open: func(t *testing.T, addr string) elector.Store { return New(newClient(t, addr)) },
	Write: func(ctx context.Context, s elector.Store, term elector.Term) error {
		// Unique across this process and the leader's child process.
		key := fmt.Sprintf("%s%s/%d-%d", writesPrefix, term.Name, os.Getpid(), writeSeq.Add(1))
		_, err := s.(*Store).PutFenced(ctx, term, key, strconv.FormatUint(term.Token, 10))
		return err
	},
	Written: writtenTokens,
	Skip: map[string]string{
		"HalfOpenStall": "clientv3 multiplexes every request over one gRPC connection: when it freezes (new connections " +
			"would work) no renew can route around it, and the leader loses its term (seen: deadline 1.55 s into a " +
			"1.7 s freeze); gRPC keepalive cannot help below its 10 s minimum (see the package doc)",
	},
}

const writesPrefix = "fault-writes/"

var writeSeq atomic.Uint64

// writtenTokens returns the tokens of lease name's writes in the order etcd
// applied them. It also checks etcd's own guarantee, stronger than the
// order check the scenarios make: a token is the create revision of its
// term's lease key, so the term of token n began at revision n, and no
// write of an older token may land at or after it, even before the newer
// term has written anything.
func writtenTokens(ctx context.Context, s elector.Store, name string) ([]uint64, error) {
	resp, err := s.(*Store).c.Get(ctx, writesPrefix+name+"/", clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return nil, err
	}
	tokens := make([]uint64, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		if tokens[i], err = strconv.ParseUint(string(kv.Value), 10, 64); err != nil {
			return nil, err
		}
	}
	for i, kv := range resp.Kvs {
		for _, newer := range tokens {
			if newer > tokens[i] && kv.CreateRevision >= int64(newer) {
				return nil, fmt.Errorf("a write of token %d landed at revision %d, after the term of token %d began: the fence let a stale leader write (tokens %v)",
					tokens[i], kv.CreateRevision, newer, tokens)
			}
		}
	}
	return tokens, nil
}

// TestWrittenTokensRefusesWriteAfterNewerTerm shows that writtenTokens'
// own check can fail: a write of token 1 that etcd applied at a revision
// at or after 2, where token 2's term began, is refused although the
// tokens are in order.
func TestWrittenTokensRefusesWriteAfterNewerTerm(t *testing.T) {
	e := testserver.Etcd(t)
	c := newClient(t, e.Endpoint())
	ctx := testCtx(t, 10*time.Second)
	name := storetest.LeaseName(t)
	for i, tok := range []string{"1", "2"} {
		if _, err := c.Put(ctx, fmt.Sprintf("%s%s/w%d", writesPrefix, name, i), tok); err != nil {
			t.Fatal(err)
		}
	}
	got, err := writtenTokens(ctx, New(c), name)
	if err == nil || !strings.Contains(err.Error(), "after the term of token 2 began") {
		t.Fatalf("writtenTokens = %v, %v; want the write of token 1 refused", got, err)
	}
}

func TestFaults(t *testing.T) { faulttest.Run(t, faultEnv) }

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }

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

// TestConnectionLossEndsLeaderBeforeExpiry adds to faulttest's
// ConnectionCut and ConnectionStall what only etcd can show: a loopback
// proxy between the leader and etcd is broken, by reset (Cut) and by
// silence (Stall); the leader's renews fail, and its work context ends by
// its own deadline before etcd itself expires the lease (seen as the
// deletion of the lease key); the standby then takes over with a higher
// token.
func TestConnectionLossEndsLeaderBeforeExpiry(t *testing.T) {
	for _, mode := range []string{"cut", "stall"} {
		t.Run(mode, func(t *testing.T) {
			e := testserver.NewEtcd(t)
			p := testserver.NewProxy(t, e.Endpoint())
			ctx := testCtx(t, 30*time.Second)
			direct := newClient(t, e.Endpoint())
			g := faulttest.NewGroup(t, faultEnv)
			gone := deletions(t, ctx, direct, New(direct).Key(g.Name()))

			g.Start("a", New(newClient(t, p.Addr())))
			first := g.Wait("a to lead", faulttest.Leads)
			g.Start("b", New(direct))
			time.Sleep(time.Second) // a renews twice through the proxy; b stands by
			if who, tok, ok := g.Leader(); !ok || who != "a" || tok != first.Token {
				t.Fatalf("leader after a healthy second: %q token %d (live %v); want a, token %d", who, tok, ok, first.Token)
			}

			if mode == "cut" {
				p.Cut()
			} else {
				p.Stall()
			}
			// The Group fails the test if b leads while a's context is live.
			end := g.Wait("a's context to end", func(e faulttest.Event) bool { return e.Kind == faulttest.End && e.Who == "a" })
			next := g.Wait("b to take over", faulttest.Leads)
			if next.Who != "b" || next.Token <= first.Token {
				t.Fatalf("took over: %s token %d; want b with a token above a's %d", next.Who, next.Token, first.Token)
			}
			if !errors.Is(end.Cause, elector.ErrDeadlinePassed) {
				t.Errorf("a's context ended with %v, want ErrDeadlinePassed", end.Cause)
			}
			dels := gone()
			if len(dels) == 0 {
				t.Fatal("etcd never deleted a's key, yet b leads")
			}
			// The deletion is seen through a watch, so a little after etcd
			// made it. a's deadline (when the elector cancels its context)
			// must come before that; so must the moment its context ended,
			// unless this machine stalled a's goroutines.
			if !end.Deadline.Before(dels[0]) {
				t.Fatalf("a's deadline %v is after etcd expired its lease at %v", end.Deadline, dels[0])
			}
			if !end.At.Before(dels[0]) {
				t.Fatalf("a's context ended at %v, after etcd expired its lease at %v", end.At, dels[0])
			}
			if !end.At.Before(next.At) {
				t.Fatalf("a's context ended at %v, after b started at %v", end.At, next.At)
			}
			t.Logf("a's context ended %v before etcd deleted its key, %v before b started",
				dels[0].Sub(end.At).Round(time.Millisecond), next.At.Sub(end.At).Round(time.Millisecond))

			// After the network heals a keeps competing, as a standby.
			p.Heal()
			time.Sleep(time.Second)
			if who, tok, ok := g.Leader(); !ok || who != "b" || tok != next.Token {
				t.Fatalf("leader after the heal: %q token %d (live %v); want b still, token %d", who, tok, ok, next.Token)
			}
		})
	}
}
