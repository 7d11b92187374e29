package azblobstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func TestMain(m *testing.M) { testserver.Main(m) }

// containerName is the container every test of this binary uses; lease
// names are unique per test (storetest.LeaseName).
const containerName = "elector"

// created remembers the Azurite addresses whose container exists, so
// only the first client per server pays for the create.
var created sync.Map

// newStore returns an independent client (its own HTTP pipeline and
// connection pool) of the container on the Azurite at addr. Retries are
// off and every try is bounded: the elector retries on its own schedule,
// and a hung call must not outlast a renew interval by much.
func newStore(t testing.TB, addr string) *Store {
	t.Helper()
	return newStoreIn(t, addr, containerName)
}

func newStoreIn(t testing.TB, addr, containerName string) *Store {
	t.Helper()
	cred, err := container.NewSharedKeyCredential(testserver.AzuriteAccount, testserver.AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential(testserver.AzuriteServiceURL(addr)+containerName, cred,
		&container.ClientOptions{ClientOptions: azcore.ClientOptions{
			Retry: policy.RetryOptions{MaxRetries: -1, TryTimeout: 2 * time.Second},
		}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(c)
	if _, ok := created.Load(addr + "/" + containerName); !ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.EnsureContainer(ctx); err != nil {
			t.Fatal(err)
		}
		created.Store(addr+"/"+containerName, true)
	}
	return s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestConformance(t *testing.T) {
	az := testserver.Azurite(t)
	storetest.Run(t, func(t *testing.T) elector.Store { return newStore(t, az.Addr()) })
}

// TestRestart restarts Azurite cleanly (SIGTERM, which saves its database)
// on the same data directory: RunRestart checks that tokens grow across
// it; the lease pushed far above the clock floor checks that the next
// token is exactly one more, so it came from the kept metadata and not
// from the floor (which alone would pass RunRestart). It restarts the shared server (same port and data)
// rather than a private one: tests here run one at a time, and every
// Azurite start costs 10-30 s on a loaded machine.
func TestRestart(t *testing.T) {
	az := testserver.Azurite(t)
	s := newStore(t, az.Addr())
	name := storetest.LeaseName(t) + "-far"
	first, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// Through the same conditional metadata write a grant makes.
	st, _, err := s.load(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	far := first
	far.Token = uint64(time.Now().Add(24*time.Hour).Unix()) * 1_000_000
	lc, err := s.leaseClient(name, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.writeTerm(ctxT(t), lc, st, far, st.now, time.Minute, 60); err != nil {
		t.Fatal(err)
	}

	storetest.RunRestart(t, func(t *testing.T) elector.Store { return newStore(t, az.Addr()) },
		func(t *testing.T) { az.Restart(t) })

	rec, err := s.Read(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Term != far {
		t.Fatalf("Read after a clean restart = %+v; want the term %+v", rec, far)
	}
	// Azurite 3.37 reloads a fixed lease's expiry as a string and then
	// judges the lease expired, so a live term does not survive its
	// restart (Azure keeps it). Either way another holder must not get
	// the lease while the term counts as live.
	if rec.Held {
		if _, err := s.Acquire(ctxT(t), name, "b", time.Minute); !errors.Is(err, elector.ErrHeld) {
			t.Fatalf("another holder's Acquire of the term that survived the restart: %v; want ErrHeld", err)
		}
	} else {
		t.Logf("the live term did not survive the Azurite restart: %+v", rec)
	}
	next, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if next.Token != far.Token+1 {
		t.Fatalf("token after restart %d; want %d (the metadata was not kept)", next.Token, far.Token+1)
	}
}

// TestEmulatorKill9TokensStillGrow: Azurite killed with -9 forgets what it
// had not saved yet (up to 5 s): here the container, the lease blob and
// its token. The store recreates the container and the clock floor keeps
// the next token above the forgotten one.
func TestEmulatorKill9TokensStillGrow(t *testing.T) {
	az := testserver.Azurite(t)
	// A fresh container, so the kill most likely comes before Azurite
	// saved it; if it did save, the test checks the saved term instead.
	s := newStoreIn(t, az.Addr(), "kill9-"+strconv.Itoa(int(time.Now().UnixNano()%1e9)))
	name := storetest.LeaseName(t)
	before, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The floor is the service's Date in whole seconds: it can only exceed
	// a forgotten token granted in an earlier second (nextToken). Azurite
	// restarts in well under a second here, so the test waits for the
	// service's next second, as any restart slower than a second would.
	time.Sleep(time.Until(time.UnixMicro(int64(before.Token)).Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	if err := az.Kill(); err != nil {
		t.Fatal(err)
	}
	az.Resume(t)
	rec, err := s.Read(ctxT(t), name)
	if err != nil && !strings.Contains(err.Error(), "ContainerNotFound") {
		t.Fatal(err)
	}
	if err == nil && rec.Held {
		t.Logf("Azurite had saved the grant before the kill: %+v", rec)
	}
	after, err := s.Acquire(ctxT(t), name, "b", time.Minute)
	if rec.Held && err == nil {
		t.Fatalf("Acquire by another holder while the saved term is live = %+v", after)
	}
	if !rec.Held {
		if err != nil {
			t.Fatalf("Acquire after kill -9 and restart: %v", err)
		}
		if after.Token <= before.Token {
			t.Fatalf("token after kill -9 %d; want > %d", after.Token, before.Token)
		}
	}
}

func TestLeaseSeconds(t *testing.T) {
	for _, tc := range []struct {
		ttl  time.Duration
		want int32
	}{
		{time.Millisecond, 15},
		{time.Second, 15},
		{15 * time.Second, 15},
		{15*time.Second + time.Millisecond, 16},
		{59*time.Second + 1, 60},
		{60 * time.Second, 60},
	} {
		if got, err := leaseSeconds(tc.ttl); err != nil || got != tc.want {
			t.Errorf("leaseSeconds(%v) = %d, %v; want %d", tc.ttl, got, err, tc.want)
		}
	}
	for _, ttl := range []time.Duration{0, -time.Second, 60*time.Second + time.Millisecond, time.Hour} {
		if got, err := leaseSeconds(ttl); err == nil {
			t.Errorf("leaseSeconds(%v) = %d; want an error", ttl, got)
		}
	}
	_, err := leaseSeconds(2 * time.Minute)
	if err == nil || !strings.Contains(err.Error(), "LeaseDuration") {
		t.Fatalf("error for a 2m ttl %v; want one naming the elector's Timing.LeaseDuration", err)
	}
}

func TestLeaseIDDeterministicUUID(t *testing.T) {
	a, b := LeaseID("host-1"), LeaseID("host-2")
	if a != LeaseID("host-1") {
		t.Fatal("LeaseID is not deterministic")
	}
	if a == b {
		t.Fatal("two holders share a lease ID")
	}
	if len(a) != 36 || a[14] != '5' || !strings.ContainsRune("89ab", rune(a[19])) {
		t.Fatalf("LeaseID %q is not a version-5 layout UUID", a)
	}
}

// TestTTLAboveAzureMaximumRejected: a 61 s lease cannot be covered by an
// Azure lease; the store says so instead of silently granting 60 s.
func TestTTLAboveAzureMaximumRejected(t *testing.T) {
	az := testserver.Azurite(t)
	s := newStore(t, az.Addr())
	name := storetest.LeaseName(t)
	if term, err := s.Acquire(ctxT(t), name, "a", 61*time.Second); err == nil {
		t.Fatalf("Acquire with a 61 s ttl = %+v; want an error", term)
	}
	if rec, err := s.Read(ctxT(t), name); err != nil || rec.Held {
		t.Fatalf("Read after a refused Acquire = %+v, %v; want not held", rec, err)
	}
}

// TestRenewLongerTTLExtendsAzureLease: a term taken with a 1 s ttl holds a
// 15 s Azure lease; renewing it with 30 s must move the Azure lease to 30 s
// too (AcquireLease with the same ID), or the term would end at 15 s.
func TestRenewLongerTTLExtendsAzureLease(t *testing.T) {
	az := testserver.Azurite(t)
	s := newStore(t, az.Addr())
	name := storetest.LeaseName(t)
	term, err := s.Acquire(ctxT(t), name, "a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Renew(ctxT(t), term, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	st, _, err := s.load(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if got := leaseSecondsOf(st); got != 30 {
		t.Fatalf("Azure lease duration after renewing with 30 s = %d s; want 30", got)
	}
	rec, err := s.Read(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Held || rec.Remaining < 25*time.Second {
		t.Fatalf("Read after renewing with 30 s = %+v; want held for about 30 s", rec)
	}
	if err := s.Renew(ctxT(t), term, 61*time.Second); err == nil || errors.Is(err, elector.ErrLost) {
		t.Fatalf("Renew with a 61 s ttl: %v; want a refusal that is not ErrLost", err)
	}
}

// TestAppendFencedRefusesEndedTerm: the fenced resource takes the current
// term's writes and refuses an ended term's, changing nothing.
func TestAppendFencedRefusesEndedTerm(t *testing.T) {
	az := testserver.Azurite(t)
	s := newStore(t, az.Addr())
	name := storetest.LeaseName(t)
	res := name + ".res"
	t1, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFenced(ctxT(t), t1, res, []byte("1\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctxT(t), t1); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFenced(ctxT(t), t1, res, []byte("stale\n")); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("append with a released term: %v; want ErrLost", err)
	}
	t2, err := s.Acquire(ctxT(t), name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFenced(ctxT(t), t2, res, []byte("2\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFenced(ctxT(t), t1, res, []byte("stale\n")); !errors.Is(err, elector.ErrLost) {
		t.Fatalf("append with the previous term: %v; want ErrLost", err)
	}
	body, err := s.ReadFenced(ctxT(t), res)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "1\n2\n" {
		t.Fatalf("resource = %q; want the two current terms' writes only", body)
	}
}

// TestElectorRejectsLeaseAboveAzureMaximum: elector.New refuses a timing
// whose lease exceeds Azure's 60 s fixed lease, before any request.
func TestElectorRejectsLeaseAboveAzureMaximum(t *testing.T) {
	var _ interface {
		LeaseBounds() (min, max time.Duration)
	} = (*Store)(nil)
	s := New(nil) // New makes no request; the candidate is never run
	tm := elector.Timing{LeaseDuration: 90 * time.Second, RenewInterval: 30 * time.Second,
		RetryInterval: 5 * time.Second, DriftBound: 2 * time.Second, StopBudget: 2 * time.Second}
	if err := tm.Validate(); err != nil {
		t.Fatalf("timing invalid on its own: %v", err)
	}
	if _, err := elector.New(s, "too-long", elector.WithTiming(tm)); err == nil {
		t.Fatal("elector.New accepted a 90 s lease on Azure Blob leases")
	}
	tm.LeaseDuration, tm.RenewInterval = 60*time.Second, 20*time.Second
	if _, err := elector.New(s, "max", elector.WithTiming(tm)); err != nil {
		t.Errorf("elector.New refused a 60 s lease: %v", err)
	}
}
