package kubestore

import (
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

// TestWatchClosesWhenAPIServerDies checks the Watcher contract on a dead
// API server: the watch channel closes, so a standby falls back to polling
// instead of waiting for a wakeup that cannot come. The candidates' side
// of the same crash (the leader's context ends by its deadline, a leader
// with a larger token after the restart, no overlap) is faulttest's
// ServerKill9 in TestFaults.
func TestWatchClosesWhenAPIServerDies(t *testing.T) {
	k := testserver.NewKubeAPIServer(t, testserver.Etcd(t))
	ctx := testCtx(t, 30*time.Second)
	wch, err := newStore(t, k).Watch(ctx, storetest.LeaseName(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-wch:
		case <-deadline:
			t.Fatal("watch channel still open 10s after the API server died")
		}
	}
	t.Logf("watch closed %v after the kill", time.Since(killed).Round(time.Millisecond))
}
