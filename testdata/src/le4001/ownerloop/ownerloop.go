// Package ownerloop elects its singleton by owning a key of a hash ring,
// re-checked on every tick. Each silent loop is paired with a reported one
// that differs only in the guard the silence rests on.
package ownerloop

import (
	"context"
	"fmt"
	"log"
	"sync"
	"time"

	kitlog "github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/grafana/dskit/ring"
)

const electionKey = 0

type archiver struct {
	ring    ring.ReadRing
	self    string
	running bool
	cancel  context.CancelFunc
}

func (a *archiver) archive(ctx context.Context) { <-ctx.Done() }

// failOpen: the lookup's error only logs and continues, so the archiving
// started on an earlier tick runs on.
func (a *archiver) failOpen(ctx context.Context) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	var workCtx context.Context
	var stop context.CancelFunc
	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			if stop != nil {
				stop()
			}
			wg.Wait()
			return
		case <-tick.C:
			owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil) // want `the ring lookup ring.ReadRing.Get elects this replica .* when the lookup fails the round only logs and goes on`
			if err != nil {
				log.Printf("cannot read the ring, will retry: %v", err)
				continue
			}
			addrs := owners.GetAddresses()
			if len(addrs) != 1 {
				continue
			}
			if addrs[0] == a.self {
				if !a.running {
					workCtx, stop = context.WithCancel(ctx)
					wg.Add(1)
					go func() {
						defer wg.Done()
						a.archive(workCtx)
					}()
					a.running = true
				}
			} else if a.running {
				stop()
				wg.Wait()
				a.running = false
			}
		}
	}
}

// failClosed: on a failed lookup the replica stops as if it did not own
// the key (the twin of failOpen without the stop in the error branch).
func (a *archiver) failClosed(ctx context.Context) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	var stop context.CancelFunc
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
			if err != nil {
				log.Printf("cannot read the ring: %v", err)
				if stop != nil {
					stop()
					stop = nil
				}
				continue
			}
			if owners.Includes(a.self) {
				if stop == nil {
					var workCtx context.Context
					workCtx, stop = context.WithCancel(ctx)
					go a.archive(workCtx)
				}
			} else if stop != nil {
				stop()
				stop = nil
			}
		}
	}
}

// failFlagged: the error branch clears the running flag the work may read
// (a store the analysis cannot follow): silent.
func (a *archiver) failFlagged(ctx context.Context, r *ring.Ring) {
	for {
		time.Sleep(time.Second)
		owners, err := r.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			a.running = false
			continue
		}
		if owners.Includes(a.self) {
			var workCtx context.Context
			workCtx, a.cancel = context.WithCancel(ctx)
			go a.archive(workCtx)
		} else {
			a.cancel()
		}
	}
}

// failOpenField: failFlagged's twin; the cancel is kept in a field, and the
// error branch only logs.
func (a *archiver) failOpenField(ctx context.Context, r *ring.Ring) {
	for {
		time.Sleep(time.Second)
		owners, err := r.Get(electionKey, ring.Write, nil, nil, nil) // want `the ring lookup ring.Ring.Get elects this replica`
		if err != nil {
			log.Println("ring lookup failed:", err)
			continue
		}
		if owners.Includes(a.self) {
			var workCtx context.Context
			workCtx, a.cancel = context.WithCancel(ctx)
			go a.archive(workCtx)
		} else {
			a.cancel()
		}
	}
}

// failReturns: the error is handed to the caller (a service manager that
// may stop everything): silent.
func (a *archiver) failReturns(ctx context.Context) error {
	var stop context.CancelFunc
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			return fmt.Errorf("ring lookup: %w", err)
		}
		if owners.Includes(a.self) {
			var workCtx context.Context
			workCtx, stop = context.WithCancel(ctx)
			go a.archive(workCtx)
		} else if stop != nil {
			stop()
		}
	}
}

// keepsGoing: the decision starts work but never stops it: nothing shows
// the lookup to be an election (the twin of failOpen without the stop).
func (a *archiver) keepsGoing(ctx context.Context) {
	for {
		time.Sleep(time.Second)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			log.Println("ring lookup failed:", err)
			continue
		}
		if owners.Includes(a.self) {
			workCtx, stop := context.WithCancel(ctx)
			go a.archive(workCtx)
			_ = stop
		} else {
			log.Println("not the owner")
		}
	}
}

// otherCancel: the not-owner side calls a cancel that the owner side did
// not make (a callback handed in): silent, the pair is not proven.
func (a *archiver) otherCancel(ctx context.Context, release func()) {
	for {
		time.Sleep(time.Second)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			log.Println("ring lookup failed:", err)
			continue
		}
		if owners.Includes(a.self) {
			workCtx, stop := context.WithCancel(ctx)
			go a.archive(workCtx)
			defer stop()
		} else {
			release()
		}
	}
}

// once: the lookup is made once, not every round: silent, since no later
// round carries the cancel made on the owner side to the not-owner side
// (stop is still nil there), and the failure returns (as in failReturns).
func (a *archiver) once(ctx context.Context) {
	var stop context.CancelFunc
	owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
	if err != nil {
		log.Println("ring lookup failed:", err)
		return
	}
	if owners.Includes(a.self) {
		var workCtx context.Context
		workCtx, stop = context.WithCancel(ctx)
		go a.archive(workCtx)
	} else if stop != nil {
		stop()
	}
}

// shards: a per-tenant ownership read, rebuilt every round, that starts and
// stops nothing (a ring read error drops the tenant): silent.
func (a *archiver) shards(ctx context.Context, tenants []string) {
	for {
		time.Sleep(time.Second)
		var mine []string
		for i, t := range tenants {
			owners, err := a.ring.Get(uint32(i), ring.Write, nil, nil, nil)
			if err != nil {
				log.Println("ring lookup failed:", err)
				continue
			}
			if owners.Includes(a.self) {
				mine = append(mine, t)
			}
		}
		log.Println("own", len(mine))
	}
}

// stopsEveryRound: the cancel is called at the end of every round, owner or
// not, so it is not the not-owner side of the test: silent (failOpen's twin
// with the stop moved out of the else branch).
func (a *archiver) stopsEveryRound(ctx context.Context) {
	for {
		time.Sleep(time.Second)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			log.Println("ring lookup failed:", err)
			continue
		}
		var stop context.CancelFunc
		var wg sync.WaitGroup
		if owners.Includes(a.self) {
			var workCtx context.Context
			workCtx, stop = context.WithCancel(ctx)
			wg.Add(1)
			go func() {
				defer wg.Done()
				a.archive(workCtx)
			}()
		}
		wg.Wait()
		if stop != nil {
			stop()
		}
	}
}

type scheduler struct{ ctx context.Context }

// Start runs the jobs on ctx until it is cancelled.
func (s *scheduler) Start(ctx context.Context) { s.ctx = ctx }

// failOpenStart: the owner starts a scheduler that starts its own goroutines
// on the context; the error branch only logs.
func (a *archiver) failOpenStart(ctx context.Context, s *scheduler) {
	var stop context.CancelFunc
	for {
		time.Sleep(time.Second)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil) // want `the ring lookup ring.ReadRing.Get elects this replica`
		if err != nil {
			log.Println("ring lookup failed:", err)
			continue
		}
		if owners.Includes(a.self) {
			if stop == nil {
				var workCtx context.Context
				workCtx, stop = context.WithCancel(ctx)
				s.Start(workCtx)
			}
		} else if stop != nil {
			stop()
			stop = nil
		}
	}
}

// failRecorded: the error is kept for later (a value the analysis does not
// follow): silent (failOpen's twin with the error handed on).
func (a *archiver) failRecorded(ctx context.Context, health func([]error)) {
	var stop context.CancelFunc
	var failures []error
	for {
		time.Sleep(time.Second)
		health(failures)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil)
		if err != nil {
			failures = append(failures, err)
			continue
		}
		if owners.Includes(a.self) {
			var workCtx context.Context
			workCtx, stop = context.WithCancel(ctx)
			go a.archive(workCtx)
		} else if stop != nil {
			stop()
		}
	}
}

// failOpenLeveled: failOpen with go-kit's leveled logger in the error
// branch (level.Error(logger).Log is only logging).
func (a *archiver) failOpenLeveled(ctx context.Context, logger kitlog.Logger) {
	var stop context.CancelFunc
	for {
		time.Sleep(time.Second)
		owners, err := a.ring.Get(electionKey, ring.Write, nil, nil, nil) // want `the ring lookup ring.ReadRing.Get elects this replica`
		if err != nil {
			level.Error(logger).Log("msg", "error asking the ring who runs the archiver", "err", err)
			continue
		}
		if owners.Includes(a.self) {
			if stop == nil {
				var workCtx context.Context
				workCtx, stop = context.WithCancel(ctx)
				go a.archive(workCtx)
			}
		} else if stop != nil {
			level.Info(logger).Log("msg", "another replica owns the archiver")
			stop()
			stop = nil
		}
	}
}
