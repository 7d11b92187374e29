package leasetiming

import (
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// TestTimingMirrorsElector checks that the analyzer's copy of the elector's
// timing rules rejects exactly what elector.Timing.Validate rejects.
func TestTimingMirrorsElector(t *testing.T) {
	durs := []time.Duration{-time.Second, 0, 100 * time.Millisecond, 500 * time.Millisecond, time.Second,
		2 * time.Second, 3 * time.Second, 5 * time.Second, 9 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second}
	small := []time.Duration{-time.Millisecond, 0, 500 * time.Millisecond, time.Second, 4 * time.Second}
	n := 0
	for _, lease := range durs {
		for _, renew := range durs {
			for _, retry := range durs {
				for _, drift := range small {
					for _, stop := range small {
						et := elector.Timing{LeaseDuration: lease, RenewInterval: renew, RetryInterval: retry, DriftBound: drift, StopBudget: stop}
						mt := timing{int64(lease), int64(renew), int64(retry), int64(drift), int64(stop)}
						want := et.Validate() != nil
						got := len(mt.problems()) > 0
						if got != want {
							t.Errorf("%v: analyzer rejects=%v, elector.Validate rejects=%v (%v)", et, got, want, et.Validate())
						}
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no cases")
	}
}
