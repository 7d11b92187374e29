package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

// broken wraps a correct store and breaks one rule of the contract.
type broken struct {
	*memstore.Store
	variant string
}

func (b *broken) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	switch b.variant {
	case "reclaim-keeps-token":
		if rec, err := b.Store.Read(context.Background(), name); err == nil && rec.Held && rec.Holder == holder {
			return rec.Term, nil
		}
	case "no-mutual-exclusion":
		if rec, err := b.Store.Read(context.Background(), name); err == nil && rec.Held {
			if err := b.Store.Release(context.Background(), rec.Term); err != nil {
				return elector.Term{}, err
			}
		}
	case "expires-early":
		ttl /= 2
	case "ignores-cancelled-ctx":
		ctx = context.Background()
	}
	return b.Store.Acquire(ctx, name, holder, ttl)
}

func (b *broken) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if b.variant == "renew-shortens" {
		ttl /= 3 // passes RenewExtends, which renews every 500 ms on a 2 s ttl
	}
	if b.variant == "renew-ignores-token" {
		if rec, err := b.Store.Read(context.Background(), t.Name); err == nil && rec.Held && rec.Holder == t.Holder {
			t = rec.Term
		}
	}
	return b.Store.Renew(ctx, t, ttl)
}

func (b *broken) Release(ctx context.Context, t elector.Term) error {
	if b.variant == "release-ignores-term" {
		if rec, err := b.Store.Read(context.Background(), t.Name); err == nil && rec.Held {
			t = rec.Term
		}
	}
	return b.Store.Release(ctx, t)
}

func (b *broken) Read(ctx context.Context, name string) (elector.Record, error) {
	rec, err := b.Store.Read(ctx, name)
	if b.variant == "read-renews" && err == nil && rec.Held {
		_ = b.Store.Renew(ctx, rec.Term, 5*time.Second)
	}
	return rec, err
}

func (b *broken) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	if b.variant == "watch-silent" {
		ch := make(chan struct{})
		context.AfterFunc(ctx, func() { close(ch) })
		return ch, nil
	}
	return b.Store.Watch(ctx, name)
}

const brokenEnv = "STORETEST_BROKEN_VARIANT"

// TestBrokenHelper runs the suite on a broken store in a child process
// started by TestSuiteCatchesBrokenStores; in a normal run it skips.
func TestBrokenHelper(t *testing.T) {
	variant := os.Getenv(brokenEnv)
	if variant == "" {
		t.Skip("only run as a child of TestSuiteCatchesBrokenStores")
	}
	if strings.HasPrefix(variant, "weak-") {
		w := newWeakStore(strings.TrimPrefix(variant, "weak-"))
		storetest.Run(t, func(t *testing.T) elector.Store { return w })
		return
	}
	s := &broken{Store: memstore.New(), variant: variant}
	storetest.Run(t, func(t *testing.T) elector.Store { return s })
}

// TestSuiteCatchesBrokenStores proves the suite can fail: each broken store
// must fail the subtest named for the rule it breaks.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	for variant, subtest := range map[string]string{
		"reclaim-keeps-token":   "ReclaimBySameHolder",
		"no-mutual-exclusion":   "MutualExclusion",
		"expires-early":         "Expiry",
		"ignores-cancelled-ctx": "CancelledContext",
		"renew-ignores-token":   "TermScopedRenewRelease",
		"release-ignores-term":  "TermScopedRenewRelease",
		"read-renews":           "ReadChangesNothing",
		"watch-silent":          "Watch",
		"renew-shortens":        "RenewHoldsFullTTL",
		// Semantic weakenings of a store written from scratch (weak_test.go):
		"weak-renew-shortens":         "RenewHoldsFullTTL",
		"weak-renew-keeps-expiry":     "RenewHoldsFullTTL",
		"weak-renew-overextends":      "RenewHoldsFullTTL",
		"weak-renew-resurrects":       "Expiry",
		"weak-release-holder-only":    "ReclaimBySameHolder",
		"weak-release-token-only":     "TermScopedRenewRelease",
		"weak-acquire-reuses-expired": "TokensStrictlyIncrease",
	} {
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenHelper$/^"+subtest+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), brokenEnv+"="+variant)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("suite passed a store with %s; output:\n%s", variant, out)
			}
			if want := "--- FAIL: TestBrokenHelper/" + subtest; !strings.Contains(string(out), want) {
				t.Fatalf("output lacks %q:\n%s", want, out)
			}
		})
	}
}

func TestLeaseNameUnique(t *testing.T) {
	a, b := storetest.LeaseName(t), storetest.LeaseName(t)
	if a == b || !strings.HasPrefix(a, "storetest-testleasenameunique-") {
		t.Fatalf("names %q, %q", a, b)
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			t.Fatalf("name %q has %q", a, r)
		}
	}
}

// restartable models a server restart on top of memserver: durable restarts
// keep the token counters, the broken variant forgets them.
type restartable struct {
	s      *memserver.Server
	forget bool
}

func (r *restartable) restart(t *testing.T) {
	if r.forget {
		r.s = memserver.New(nil) // a store that loses its counters
		return
	}
	r.s.Restart()
	r.s.LoseLeases() // the harder case: volatile leases, durable tokens
}

func TestRunRestart(t *testing.T) {
	r := &restartable{s: memserver.New(nil)}
	storetest.RunRestart(t, func(t *testing.T) elector.Store { return r.s }, r.restart)
}

func TestRunRestartCatchesReusedTokens(t *testing.T) {
	switch os.Getenv(brokenEnv) {
	case "forget-tokens":
		r := &restartable{s: memserver.New(nil), forget: true}
		storetest.RunRestart(t, func(t *testing.T) elector.Store { return r.s }, r.restart)
		return
	case "weak-stale-snapshot":
		w := newWeakStore("stale-snapshot")
		storetest.RunRestart(t, func(t *testing.T) elector.Store { return w }, func(*testing.T) { w.restart() })
		return
	}
	// forget-tokens starts from scratch; stale-snapshot restores counters
	// persisted at the last release, not the last grant (a store that
	// snapshots asynchronously), so the grant after it is issued again.
	for _, variant := range []string{"forget-tokens", "weak-stale-snapshot"} {
		t.Run(variant, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunRestartCatchesReusedTokens$", "-test.count=1")
			cmd.Env = append(os.Environ(), brokenEnv+"="+variant)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "reused a token") {
				t.Fatalf("RunRestart passed a store with %s (err %v):\n%s", variant, err, out)
			}
		})
	}
}
