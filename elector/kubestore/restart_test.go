package kubestore

import (
	"context"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestRestartTokensNeverGoBack runs storetest.RunRestart across a clean
// restart and a kill -9 of the API server. The Leases live in etcd, so the
// counter survives either.
func TestRestartTokensNeverGoBack(t *testing.T) {
	k := testserver.NewKubeAPIServer(t, testserver.Etcd(t))
	open := func(t *testing.T) elector.Store { return newStore(t, k) }
	t.Run("restart", func(t *testing.T) {
		storetest.RunRestart(t, open, func(t *testing.T) { k.Restart(t) })
	})
	t.Run("kill", func(t *testing.T) {
		storetest.RunRestart(t, open, func(t *testing.T) {
			if err := k.Kill(); err != nil {
				t.Fatal(err)
			}
			k.Resume(t)
		})
	})
}

// TestAPIServerCrashWithCandidates kills the API server under two running
// candidates. The leader cannot renew, so its work ends by its own
// deadline; open watches close; after the server returns exactly one
// candidate leads, with a token above the last one, and no two terms
// overlapped.
func TestAPIServerCrashWithCandidates(t *testing.T) {
	k := testserver.NewKubeAPIServer(t, testserver.Etcd(t))
	ctx := testCtx(t, 120*time.Second)
	name := storetest.LeaseName(t)
	a := runCandidate(t, newStore(t, k), name, "a")
	b := runCandidate(t, newStore(t, k), name, "b")
	first, _ := leaderOf(t, ctx, a, b)

	watcher := newStore(t, k)
	wch, err := watcher.Watch(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for _, r := range []*terms{a, b} {
		r.wait(t, ctx, "the leader's work to end", func(all []*leaderTerm) bool {
			return len(all) == 0 || !all[len(all)-1].end.IsZero()
		})
	}
	deadline := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-wch:
		case <-deadline:
			t.Fatal("watch channel still open 10s after the API server died")
		}
	}
	t.Logf("leader token %d stopped %v after the kill", first.lease.Token(), time.Since(killed).Round(time.Millisecond))

	k.Resume(t)
	next, _ := leaderOf(t, ctx, a, b)
	if next.lease.Token() <= first.lease.Token() {
		t.Fatalf("token after the restart %d; want > %d", next.lease.Token(), first.lease.Token())
	}
	noOverlap(t, a, b)
	t.Logf("after restart: token %d leads (%s), %v after the kill", next.lease.Token(), next.lease.Term().Holder, next.start.Sub(killed).Round(time.Millisecond))
}

// leaderOf waits until one of rs runs a term that has not ended and
// returns it.
func leaderOf(t *testing.T, ctx context.Context, rs ...*terms) (leaderTerm, *terms) {
	t.Helper()
	for {
		for _, r := range rs {
			all := r.snapshot()
			if n := len(all); n > 0 && all[n-1].end.IsZero() {
				return all[n-1], r
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no leader emerged")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// noOverlap fails when terms of different candidates ran at the same time.
func noOverlap(t *testing.T, rs ...*terms) {
	t.Helper()
	var all []leaderTerm
	for _, r := range rs {
		all = append(all, r.snapshot()...)
	}
	for i, x := range all {
		for _, y := range all[i+1:] {
			xEnd, yEnd := x.end, y.end
			if xEnd.IsZero() {
				xEnd = time.Now()
			}
			if yEnd.IsZero() {
				yEnd = time.Now()
			}
			if x.start.Before(yEnd) && y.start.Before(xEnd) {
				t.Errorf("terms %d (%s) and %d (%s) overlapped", x.lease.Token(), x.lease.Term().Holder, y.lease.Token(), y.lease.Term().Holder)
			}
		}
	}
}
