package kubestore

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// BenchmarkVsClientGo measures how long leadership is vacant, on one real
// kube-apiserver in one run, for this store through the elector core and
// for client-go's tools/leaderelection on a LeaseLock:
//
//   - handover: from the moment the leader is told to step down (Resign;
//     cancelling client-go's context with ReleaseOnCancel) until the
//     standby's work starts;
//   - failover: from the moment the leader stops talking to the API server
//     (a crash at a random phase of its renew cadence) until the standby's
//     work starts.
//
// client-go runs twice: with its documented defaults (15 s lease, 10 s
// renew deadline, 2 s retry) and with timings matched to ours (2 s lease,
// 1.5 s renew deadline, 200 ms retry, which is also its renew cadence).
// Each sub-benchmark reports p50 and p99 in ms; the parent prints the
// ratios client-go / elector (lines starting with "ratio"). Failover with
// the defaults takes about 20 s per iteration: run with a fixed count, e.g.
//
//	go test -run '^$' -bench VsClientGo -benchtime 10x ./elector/kubestore
func BenchmarkVsClientGo(b *testing.B) {
	// client-go's elector logs every acquisition through klog; the
	// numbers are what this benchmark prints.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	k := testserver.KubeAPIServerShared(b)
	type result struct{ p50, p99 float64 }
	results := map[string]result{}
	var mu sync.Mutex
	for _, scenario := range []string{"handover", "failover"} {
		for _, impl := range []string{"elector", "client-go-default", "client-go-matched"} {
			name := scenario + "/" + impl
			b.Run(name, func(b *testing.B) {
				ds := runVacancies(b, k, scenario, impl)
				p50, p99 := ms(electorbench.Percentile(ds, 0.50)), ms(electorbench.Percentile(ds, 0.99))
				b.ReportMetric(p50, "p50-ms")
				b.ReportMetric(p99, "p99-ms")
				mu.Lock()
				results[name] = result{p50, p99}
				mu.Unlock()
			})
		}
	}
	for _, scenario := range []string{"handover", "failover"} {
		base, ok := results[scenario+"/elector"]
		if !ok {
			continue
		}
		for _, impl := range []string{"client-go-default", "client-go-matched"} {
			if r, ok := results[scenario+"/"+impl]; ok {
				// Printed, not logged: a parent benchmark's log shows
				// only with -v.
				fmt.Printf("ratio %s: %s p50 %.0f ms p99 %.0f ms; elector p50 %.0f ms p99 %.0f ms; ratio p50 %.1fx p99 %.1fx\n",
					scenario, impl, r.p50, r.p99, base.p50, base.p99, r.p50/base.p50, r.p99/base.p99)
			}
		}
	}
}

// benchCand is one candidate of either kind: step down makes it resign
// gracefully, crash makes every later API call of it fail and stops it
// without a release; started receives when its work starts.
type benchCand struct {
	started  chan time.Time
	stepDown func()
	crash    func()
	done     chan struct{}
}

func runVacancies(b *testing.B, k *testserver.KubeAPIServer, scenario, impl string) []time.Duration {
	name := strings.ReplaceAll(testserver.UniqueName("bench-"+scenario+"-"+impl), "_", "-")
	start := func(id string) *benchCand {
		if impl == "elector" {
			return startElector(b, k, name, id)
		}
		return startClientGo(b, k, name, id, impl == "client-go-default")
	}
	settle := 2*retryOf(impl) + 300*time.Millisecond
	leader := start("c0")
	waitStarted(b, leader)
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := start(fmt.Sprintf("c%d", i+1))
		time.Sleep(settle)
		var from time.Time
		if scenario == "handover" {
			from = time.Now()
			leader.stepDown()
		} else {
			// A crash at a random phase of the renew cadence.
			time.Sleep(time.Duration(rand.Int64N(int64(renewOf(impl)))))
			from = time.Now()
			leader.crash()
		}
		ds = append(ds, waitStarted(b, next).Sub(from))
		<-leader.done
		leader = next
	}
	b.StopTimer()
	return ds
}

func waitStarted(b *testing.B, c *benchCand) time.Time {
	b.Helper()
	select {
	case at := <-c.started:
		return at
	case <-time.After(60 * time.Second):
		b.Fatal("candidate did not lead within 60 s")
		return time.Time{}
	}
}

func retryOf(impl string) time.Duration {
	switch impl {
	case "client-go-default":
		return 2 * time.Second
	case "client-go-matched":
		return clientGoMatched().RetryPeriod
	}
	return electorbench.Timing().RetryInterval
}

func renewOf(impl string) time.Duration {
	if impl == "elector" {
		return electorbench.Timing().RenewInterval
	}
	return retryOf(impl) // client-go renews every RetryPeriod
}

func startElector(b *testing.B, k *testserver.KubeAPIServer, name, id string) *benchCand {
	b.Helper()
	s := electorbench.NewCrashable(newStore(b, k))
	c, err := elector.New(s, name, elector.WithIdentity(id), elector.WithTiming(electorbench.Timing()))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bc := &benchCand{started: make(chan time.Time, 1), done: make(chan struct{})}
	bc.stepDown = func() {
		_ = c.Resign(context.Background()) // waits for the release
		cancel()
	}
	bc.crash = func() {
		s.Crash()
		cancel()
	}
	go func() {
		defer close(bc.done)
		_ = c.Run(ctx, func(ctx context.Context, _ elector.Lease) error {
			bc.started <- time.Now()
			<-ctx.Done()
			return nil
		})
	}()
	b.Cleanup(func() { cancel(); <-bc.done })
	return bc
}

// clientGoMatched is client-go's configuration matched to faultTiming: the
// same 2 s lease, a renew deadline a little below it, and the retry
// interval, which in client-go is also the renew cadence.
func clientGoMatched() leaderelection.LeaderElectionConfig {
	return leaderelection.LeaderElectionConfig{
		LeaseDuration: 2 * time.Second,
		RenewDeadline: 1500 * time.Millisecond,
		RetryPeriod:   200 * time.Millisecond,
	}
}

// crashLock fails every call after a crash, like faultLock around the store.
type crashLock struct {
	resourcelock.Interface
	dead atomic.Bool
}

func (l *crashLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if l.dead.Load() {
		return nil, nil, electorbench.ErrCrashed
	}
	return l.Interface.Get(ctx)
}

func (l *crashLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.dead.Load() {
		return electorbench.ErrCrashed
	}
	return l.Interface.Create(ctx, r)
}

func (l *crashLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.dead.Load() {
		return electorbench.ErrCrashed
	}
	return l.Interface.Update(ctx, r)
}

func startClientGo(b *testing.B, k *testserver.KubeAPIServer, name, id string, defaults bool) *benchCand {
	b.Helper()
	lock := &crashLock{Interface: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: "default", Name: name},
		Client:     newClient(b, k, k.AdminToken()),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}}
	cfg := clientGoMatched()
	if defaults {
		// The values client-go documents and most controllers use.
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = 15*time.Second, 10*time.Second, 2*time.Second
	}
	cfg.Lock = lock
	cfg.Name = name
	cfg.ReleaseOnCancel = true
	bc := &benchCand{started: make(chan time.Time, 1), done: make(chan struct{})}
	cfg.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { bc.started <- time.Now() },
		OnStoppedLeading: func() {},
	}
	le, err := leaderelection.NewLeaderElector(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bc.stepDown = cancel
	bc.crash = func() {
		lock.dead.Store(true)
		cancel()
	}
	go func() {
		defer close(bc.done)
		le.Run(ctx)
	}()
	b.Cleanup(func() { cancel(); <-bc.done })
	return bc
}

// ms is a duration in milliseconds, for the ratio lines.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
