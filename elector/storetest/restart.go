package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// RunRestart checks the one rule Run cannot: tokens are never reused, also
// across a restart of the server. restart must stop the server and start it
// again on the same data and address (a kill -9 is the harder case); open is
// called again afterwards for fresh clients. Whether a live lease survives
// the restart is the store's own business (a durable store keeps it, Redis
// without persistence may not); either way the next grant's token must be
// larger than every token issued before.
func RunRestart(t *testing.T, open func(t *testing.T) elector.Store, restart func(t *testing.T)) {
	t.Helper()
	a := open(t)
	name := LeaseName(t)
	t1 := mustAcquire(t, a, name, "holder-a", longTTL)
	if err := a.Release(callCtx(t), t1); err != nil {
		t.Fatalf("Release: %v", err)
	}
	t2 := mustAcquire(t, a, name, "holder-b", longTTL)

	restart(t)

	b := open(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		// holder-b reclaims if its lease survived; any grant must be new.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t3, err := b.Acquire(ctx, name, "holder-b", longTTL)
		cancel()
		if err == nil {
			if t3.Token <= t2.Token {
				t.Fatalf("token after restart %d; want > %d: the store reused a token", t3.Token, t2.Token)
			}
			return
		}
		if errors.Is(err, elector.ErrHeld) {
			t.Fatalf("Acquire by the holder of the last term after restart: %v; a reclaim must succeed", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("store not usable 20s after restart: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
