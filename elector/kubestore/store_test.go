package kubestore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// TestTokensSurviveLeaseDeletion deletes the election Lease, then the fence
// Lease, between grants: either one alone keeps the next token above every
// token issued. Deleting both resets the counter; the documented Role
// grants no delete, so an elector cannot do that, only an administrator.
func TestTokensSurviveLeaseDeletion(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	s := newStore(t, k)
	leases := newClient(t, k, k.AdminToken()).Leases("default")
	ctx := testCtx(t, 60*time.Second)
	name := storetest.LeaseName(t)
	var last uint64
	grant := func(what string) {
		t.Helper()
		term, err := s.Acquire(ctx, name, "a", 30*time.Second)
		if err != nil {
			t.Fatalf("%s: Acquire: %v", what, err)
		}
		if term.Token <= last {
			t.Fatalf("%s: token %d; want > %d", what, term.Token, last)
		}
		last = term.Token
		if err := s.Release(ctx, term); err != nil {
			t.Fatalf("%s: Release: %v", what, err)
		}
	}
	del := func(obj string) {
		t.Helper()
		if err := leases.Delete(ctx, obj, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s: %v", obj, err)
		}
	}
	grant("first")
	grant("second")
	del(name)
	grant("after deleting the election Lease")
	del(name + FenceSuffix)
	grant("after deleting the fence Lease")
	del(name)
	grant("after deleting the election Lease again")

	// The limit, shown: with both objects gone nothing remembers.
	del(name)
	del(name + FenceSuffix)
	term, err := s.Acquire(ctx, name, "a", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if term.Token != 1 {
		t.Fatalf("token %d after deleting both objects; the documented limit says the counter restarts at 1", term.Token)
	}
}

// TestClientGoFieldSemantics checks the Lease as client-go's own LeaseLock
// reads it: holder, duration in whole seconds (rounded up), acquire and
// renew times, and transitions counted on every grant after the first.
func TestClientGoFieldSemantics(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	c := newClient(t, k, k.AdminToken())
	s := New(c, "default")
	ctx := testCtx(t, 60*time.Second)
	name := storetest.LeaseName(t)
	lock := &resourcelock.LeaseLock{
		LeaseMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Client:    c,
	}
	record := func() *resourcelock.LeaderElectionRecord {
		t.Helper()
		r, _, err := lock.Get(ctx)
		if err != nil {
			t.Fatalf("LeaseLock.Get: %v", err)
		}
		return r
	}

	t1, err := s.Acquire(ctx, name, "a", 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	r := record()
	if r.HolderIdentity != "a" || r.LeaseDurationSeconds != 2 || r.LeaderTransitions != 0 || r.AcquireTime.IsZero() || !r.RenewTime.Equal(&r.AcquireTime) {
		t.Fatalf("after the first grant: %+v; want holder a, 2 s (1.5 s rounded up), 0 transitions, renew = acquire", r)
	}
	acquired := r.AcquireTime
	time.Sleep(50 * time.Millisecond)
	if err := s.Renew(ctx, t1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	r = record()
	if r.HolderIdentity != "a" || r.LeaseDurationSeconds != 5 || !r.AcquireTime.Equal(&acquired) || !r.RenewTime.After(acquired.Time) || r.LeaderTransitions != 0 {
		t.Fatalf("after Renew: %+v; want the same acquire time, a later renew time, 5 s", r)
	}
	if err := s.Release(ctx, t1); err != nil {
		t.Fatal(err)
	}
	if r = record(); r.HolderIdentity != "" || r.LeaseDurationSeconds != 1 {
		t.Fatalf("after Release: %+v; want no holder and 1 s, as client-go's ReleaseOnCancel writes", r)
	}
	if _, err := s.Acquire(ctx, name, "b", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if r = record(); r.HolderIdentity != "b" || r.LeaderTransitions != 1 {
		t.Fatalf("after b's grant: %+v; want holder b and 1 transition", r)
	}
}

// TestFreshStoreWaitsFullDuration shows the expiry rule: a Store judges a
// held Lease by its own observation, never by the renewTime another
// machine's clock wrote. A Store that first sees a Lease whose renewTime
// is long past still waits one full duration from that sighting.
func TestFreshStoreWaitsFullDuration(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	ctx := testCtx(t, 60*time.Second)
	name := storetest.LeaseName(t)
	const ttl = 2 * time.Second
	if _, err := newStore(t, k).Acquire(ctx, name, "a", ttl); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl + 500*time.Millisecond)

	late := newStore(t, k)
	seen := time.Now()
	_, err := late.Acquire(ctx, name, "b", ttl)
	if !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("first Acquire by a Store that never saw the Lease: %v; want ErrHeld", err)
	}
	for {
		_, err := late.Acquire(ctx, name, "b", ttl)
		if err == nil {
			break
		}
		if !errors.Is(err, elector.ErrHeld) || time.Since(seen) > 3*ttl {
			t.Fatalf("Acquire %v after first sight: %v", time.Since(seen), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if waited := time.Since(seen); waited < ttl {
		t.Fatalf("granted %v after first sight; want at least the lease duration %v", waited, ttl)
	}
}

// TestZeroTermAndBadInput covers arguments no candidate sends.
func TestZeroTermAndBadInput(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	s := newStore(t, k)
	ctx := testCtx(t, 30*time.Second)
	name := storetest.LeaseName(t)
	if err := s.Renew(ctx, elector.Term{Name: name, Holder: "a"}, time.Second); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("Renew of the zero token: %v; want ErrLost", err)
	}
	if err := s.Release(ctx, elector.Term{Name: name, Holder: "a"}); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("Release of the zero token: %v; want ErrLost", err)
	}
	if _, err := s.Acquire(ctx, name, "", time.Second); err == nil {
		t.Fatal("Acquire with an empty holder succeeded")
	}
	if _, err := s.Acquire(ctx, name, "a", 0); err == nil {
		t.Fatal("Acquire with a zero ttl succeeded")
	}
	if _, err := s.Acquire(ctx, "Not_A_Valid_Name", "a", time.Second); err == nil || !strings.Contains(err.Error(), "Invalid") {
		t.Fatalf("Acquire of an invalid object name: %v; want the API server's validation error", err)
	}
}
