package elector_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/internal/electorbench"
)

// benchTiming is a short but valid model, so a benchmark iteration takes a
// fraction of a second of real time.
var benchTiming = elector.Timing{
	LeaseDuration: 200 * time.Millisecond,
	RenewInterval: 50 * time.Millisecond,
	RetryInterval: 20 * time.Millisecond,
	DriftBound:    10 * time.Millisecond,
	StopBudget:    20 * time.Millisecond,
}

// starts runs a candidate whose work reports each start on a channel.
func starts(b *testing.B, s elector.Store, name, id string) (*elector.Candidate, chan elector.Lease, func()) {
	c, err := elector.New(s, name, elector.WithIdentity(id), elector.WithTiming(benchTiming))
	if err != nil {
		b.Fatal(err)
	}
	ch := make(chan elector.Lease, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
			ch <- l
			<-ctx.Done()
			return nil
		})
	}()
	return c, ch, func() { cancel(); <-done }
}

func reportRatio(b *testing.B, total time.Duration, unit string) {
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(time.Millisecond), "ms/"+unit)
	b.ReportMetric(float64(per)/float64(benchTiming.LeaseDuration), "lease-ratio")
	b.ReportMetric(0, "ns/op") // the custom metrics are what matters
}

// BenchmarkGracefulHandover measures a graceful end of the leader's term
// (Resign, or a shutdown of its Run) to the standby's work starting: the
// work stops, the term is released, the standby wakes by watch or poll.
func BenchmarkGracefulHandover(b *testing.B) {
	for _, how := range []struct {
		name        string
		watch, shut bool
	}{
		{"resign/watch", true, false},
		{"resign/poll", false, false},
		{"shutdown/watch", true, true},
	} {
		b.Run(how.name, func(b *testing.B) {
			var s elector.Store = memstore.New()
			if !how.watch {
				s = pollOnly{s}
			}
			var total time.Duration
			for i := 0; i < b.N; i++ {
				name := fmt.Sprintf("handover-%d", i)
				leader, leads, stopLeader := starts(b, s, name, "a")
				first := <-leads
				_, standbyLeads, stopStandby := starts(b, s, name, "b")
				// The standby is waiting, at a varying point of its poll cycle.
				time.Sleep(benchTiming.RetryInterval + time.Duration(i%10)*benchTiming.RetryInterval/10)
				t0 := time.Now()
				resigned := make(chan error, 1)
				if how.shut {
					stopLeader()
					resigned <- nil
				} else {
					// Resign waits for the release; the handover is timed
					// by the standby's lead.
					go func() { resigned <- leader.Resign(context.Background()) }()
				}
				next := <-standbyLeads
				total += time.Since(t0)
				if err := <-resigned; err != nil {
					b.Fatalf("Resign: %v", err)
				}
				if next.Token() <= first.Token() {
					b.Fatalf("token %d after %d", next.Token(), first.Token())
				}
				stopStandby()
				stopLeader()
			}
			reportRatio(b, total, "handover")
		})
	}
}

// BenchmarkCrashFailover measures a leader vanishing (it can no longer reach
// the store, so it neither renews nor releases) to the standby's work
// starting. The model's worst case is Timing.CrashFailover.
func BenchmarkCrashFailover(b *testing.B) {
	s := memstore.New()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("failover-%d", i)
		va := electorbench.NewCrashable(s)
		_, leader, stopLeader := starts(b, va, name, "a")
		<-leader
		_, standby, stopStandby := starts(b, s, name, "b")
		// Vanish at a random point of the renew cycle.
		time.Sleep(benchTiming.RenewInterval + time.Duration(i%10)*benchTiming.RenewInterval/10)
		t0 := time.Now()
		va.Crash()
		<-standby
		took := time.Since(t0)
		total += took
		if worst := benchTiming.CrashFailover() + 50*time.Millisecond; took > worst {
			b.Errorf("failover took %v; model's worst case %v (+50ms scheduling slack)", took, benchTiming.CrashFailover())
		}
		stopStandby()
		stopLeader()
	}
	reportRatio(b, total, "failover")
}
