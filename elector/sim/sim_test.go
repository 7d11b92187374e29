package sim_test

import (
	"flag"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/simhooks"
	"github.com/gatesift/gatesift-vet/elector/sim"
)

var onlySeed = flag.Uint64("seed", 0, "run TestSeedsSafe for this seed only, logging its terms")

var sweep = flag.Uint64("seeds", 0, "run this many seeds in TestSeedsSafe instead of the default")

// seeds is how many seeds each sweep runs.
func seeds() uint64 {
	if *sweep != 0 {
		return *sweep
	}
	if testing.Short() {
		return 300
	}
	return 2000
}

func run(t *testing.T, cfg sim.Config) *sim.Report {
	var rep *sim.Report
	synctest.Test(t, func(t *testing.T) { rep = sim.Run(cfg) })
	return rep
}

// TestSeedsSafe runs the real Candidate under hostile faults over many seeds:
// no violation may occur. A failure names the seed; replay it with
// go test ./elector/sim -run TestSeedsSafe -v -seed N.
func TestSeedsSafe(t *testing.T) {
	if *onlySeed != 0 {
		rep := run(t, sim.Default(*onlySeed))
		for _, tm := range rep.Terms {
			t.Logf("token %d process %d life %d: %v..%v paused %v crashed %v", tm.Token, tm.Process, tm.Life,
				tm.Start.Sub(rep.Start), tm.End.Sub(rep.Start), tm.Paused, tm.Crashed)
		}
		t.Log(rep)
		for _, v := range rep.Violations {
			t.Error(v)
		}
		return
	}
	var grants, terms, writes, rejected, crashes, paused, hangs int
	events := map[elector.EventKind]int{}
	for seed := uint64(1); seed <= seeds(); seed++ {
		rep := run(t, sim.Default(seed))
		for _, v := range rep.Violations {
			t.Errorf("seed %d: %s", seed, v)
		}
		if t.Failed() {
			t.Fatalf("%v", rep)
		}
		grants += len(rep.Grants)
		terms += len(rep.Terms)
		crashes += rep.Crashes
		hangs += rep.Hangs
		for k, n := range rep.Events {
			events[k] += n
		}
		for _, w := range rep.Writes {
			writes++
			if !w.Accepted {
				rejected++
			}
		}
		for _, tm := range rep.Terms {
			if tm.Paused > 0 {
				paused++
			}
		}
	}
	t.Logf("%d seeds: %d grants, %d terms (%d with a pause), %d writes (%d stale rejected by the fence), %d crashes, %d hung calls; events %v",
		seeds(), grants, terms, paused, writes, rejected, crashes, hangs, events)
	// The sweep must exercise what it claims to: leadership changes hands,
	// and paused leaders do attempt stale writes that fencing stops.
	if terms < int(seeds())*3 || rejected == 0 || crashes == 0 || hangs == 0 {
		t.Errorf("sweep too tame: %d terms, %d rejected writes, %d crashes, %d hung calls", terms, rejected, crashes, hangs)
	}
}

// TestBrokenDeadlineCaught checks the checker: the deadline client-go uses
// (anchored at the response, no drift or stop margin) must be caught.
func TestBrokenDeadlineCaught(t *testing.T) {
	for _, u := range []simhooks.Unsafe{
		{}, // the control: the real deadline under the same faults
		{AnchorAtResponse: true, NoMargin: true},
		{NoMargin: true},
		{AnchorAtResponse: true},
	} {
		t.Run(fmt.Sprintf("%+v", u), func(t *testing.T) {
			caught := 0
			var first string
			for seed := uint64(1); seed <= 200; seed++ {
				cfg := sim.Default(seed)
				cfg.Unsafe = u
				// Late answers are what response anchoring mishandles.
				cfg.DelayRate, cfg.MaxDelay = 0.5, 2*cfg.MaxDelay
				rep := run(t, cfg)
				if len(rep.Violations) > 0 {
					if caught == 0 {
						first = fmt.Sprintf("seed %d: %s", seed, rep.Violations[0])
					}
					caught++
				}
			}
			switch {
			case u == (simhooks.Unsafe{}) && caught > 0:
				t.Fatalf("the real deadline violated safety in %d/200 seeds; first: %s", caught, first)
			case u != (simhooks.Unsafe{}) && caught == 0:
				t.Fatalf("broken deadline %+v not caught in 200 seeds", u)
			}
			t.Logf("violations in %d/200 seeds; first: %s", caught, first)
		})
	}
}

// TestReproducible checks that a seed replays: the same grants, terms and
// writes in the same order.
func TestReproducible(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		a, b := digest(run(t, sim.Default(seed))), digest(run(t, sim.Default(seed)))
		if a != b {
			t.Errorf("seed %d ran differently twice", seed)
		}
	}
}

func digest(r *sim.Report) uint64 {
	h := fnv.New64a()
	for _, g := range r.Grants {
		fmt.Fprintln(h, g)
	}
	for _, tm := range r.Terms {
		fmt.Fprintln(h, tm.Token, tm.Process, tm.Start.UnixNano(), tm.End.UnixNano())
	}
	for _, w := range r.Writes {
		fmt.Fprintln(h, w)
	}
	return h.Sum64()
}

// TestVolatileStoreOnlyFencingHolds shows why a store that can lose live
// leases (Redis without persistence) is efficiency-grade: leaders do overlap,
// and the fence still keeps every stale write out.
func TestVolatileStoreOnlyFencingHolds(t *testing.T) {
	overlaps := 0
	for seed := uint64(1); seed <= 100; seed++ {
		cfg := sim.Default(seed)
		cfg.LeaseLosses = 3
		rep := run(t, cfg)
		for _, v := range rep.Violations {
			// Without the lease, timing keeps nothing apart: terms may
			// overlap and even start out of token order. Tokens and the
			// fence must still hold.
			if strings.Contains(v, " overlap by ") || strings.Contains(v, " started after term ") {
				overlaps++
				continue
			}
			t.Errorf("seed %d: %s", seed, v)
		}
	}
	if overlaps == 0 {
		t.Error("losing live leases never made leaders overlap; the scenario does not exercise the hazard")
	}
	t.Logf("100 seeds with 3 lease losses each: %d overlapping leader pairs, no stale write accepted", overlaps)
}

// TestFailoverWithinModel checks the liveness side of the timing model with
// the real Candidate: with crashes and resigns but no network faults, a
// standby takes over within the computed worst cases. Without the store's
// watch, graceful handovers wait for a poll, which the check must catch.
func TestFailoverWithinModel(t *testing.T) {
	n := uint64(300)
	if testing.Short() {
		n = 50
	}
	calm := func(seed uint64) sim.Config {
		cfg := sim.Default(seed)
		cfg.DropRate, cfg.DelayRate, cfg.HangRate, cfg.Pauses, cfg.Partitions, cfg.StoreRestarts = 0, 0, 0, 0, 0, 0
		cfg.Resigns = 4
		return cfg
	}
	var checked, afterCrash, slowWithoutWatch int
	for seed := uint64(1); seed <= n; seed++ {
		rep := run(t, calm(seed))
		c, a, v := sim.Failover(rep, 5*time.Millisecond)
		checked, afterCrash = checked+c, afterCrash+a
		for _, v := range append(rep.Violations, v...) {
			t.Errorf("seed %d: %s", seed, v)
		}
		cfg := calm(seed)
		cfg.NoWatch = true
		_, _, v = sim.Failover(run(t, cfg), 5*time.Millisecond)
		slowWithoutWatch += len(v)
	}
	t.Logf("%d handovers checked, %d after crashes; %d graceful handovers without a watch exceeded the watched bound",
		checked, afterCrash, slowWithoutWatch)
	if checked < int(n) || afterCrash == 0 {
		t.Errorf("check nearly vacuous: %d handovers, %d after crashes", checked, afterCrash)
	}
	if slowWithoutWatch == 0 {
		t.Error("polling standbys met the watched handover bound: the check cannot tell")
	}
}

// TestHungRenewVariantCaught: the renew timeout equal to the whole remaining
// window (the elector before issue 17) lets one hung request lose the term
// with a single attempt sent; under hang faults the checker must catch it,
// and the real renewer must not be caught under the same faults.
func TestHungRenewVariantCaught(t *testing.T) {
	n := uint64(200)
	for _, u := range []simhooks.Unsafe{{}, {RenewWholeWindow: true}} {
		t.Run(fmt.Sprintf("%+v", u), func(t *testing.T) {
			caught, hungLost := 0, 0
			var first string
			for seed := uint64(1); seed <= n; seed++ {
				cfg := sim.Default(seed)
				cfg.Unsafe = u
				cfg.HangRate = 0.1
				rep := run(t, cfg)
				for _, v := range rep.Violations {
					if strings.Contains(v, "renew attempt(s) sent") {
						hungLost++
					}
				}
				if len(rep.Violations) > 0 {
					if caught == 0 {
						first = fmt.Sprintf("seed %d: %s", seed, rep.Violations[0])
					}
					caught++
				}
			}
			switch {
			case u == (simhooks.Unsafe{}) && caught > 0:
				t.Fatalf("the real renewer violated a guarantee in %d/%d seeds; first: %s", caught, n, first)
			case u != (simhooks.Unsafe{}) && hungLost == 0:
				t.Fatalf("renew timeout of the whole window not caught in %d seeds", n)
			}
			t.Logf("violations in %d/%d seeds (%d terms lost with too few attempts); first: %s", caught, n, hungLost, first)
		})
	}
}
