package sim

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// fencedResource is the shared resource leaders write to, guarded by an
// elector.Fence as the package recommends.
type fencedResource struct {
	fence  elector.Fence
	writes []Write // appended under fence's lock via Do, or under sim.mu
}

// work is the leader's work: a write to the resource every second, and a
// stop that takes up to the stop budget after the context ends.
func (p *proc) work(ctx context.Context, l elector.Lease) error {
	s := p.sim
	s.works.Add(1)
	defer s.works.Done()
	t := s.beginTerm(p, l)
	// The tick is global, not pause-aware: a process may decide to write,
	// then be paused, then write, which is exactly what fencing is for.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = p.pauses.waitRunning(context.Background(), workLag) // a paused process notices only on resume
			if p.dead.Load() {
				return nil
			}
			cancelled := time.Now()
			r := rand.New(rand.NewPCG(p.seed, l.Token()))
			stop := time.Duration(r.Int64N(int64(s.cfg.Timing.StopBudget) + 1))
			timer := p.clock.NewTimer(stop) // the budget is on the process's clock
			<-timer.C()
			s.endTerm(t, p, time.Now(), false)
			s.mu.Lock()
			t.Cause, t.Cancelled = context.Cause(ctx), cancelled
			s.mu.Unlock()
			return nil
		case <-tick.C:
			if ctx.Err() != nil {
				continue
			}
			_ = p.pauses.waitRunning(context.Background(), workLag)
			if p.dead.Load() {
				return nil
			}
			s.write(l.Token())
		}
	}
}

func (s *simulation) write(token uint64) {
	now := time.Now()
	err := s.fence.fence.Do(token, func() error { return nil })
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fence.writes = append(s.fence.writes, Write{Token: token, At: now, Accepted: err == nil})
}

func (s *simulation) beginTerm(p *proc, l elector.Lease) *Term {
	t := &Term{Token: l.Token(), Process: p.slot, Life: p.life, Identity: l.Holder(), Start: time.Now(), Born: p.clock.born}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Requested = s.asked[t.Token]
	s.terms = append(s.terms, t)
	return t
}

func (s *simulation) endTerm(t *Term, p *proc, at time.Time, crashed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !t.End.IsZero() {
		return
	}
	t.End, t.Crashed = at, crashed
	for _, w := range p.pauses {
		t.Paused += w.overlap(t.Start, t.End)
		t.PausedSinceRequest += w.overlap(t.Requested, t.End)
	}
}

// endTerms ends every open term of p at a crash.
func (s *simulation) endTerms(p *proc, at time.Time) {
	s.mu.Lock()
	var open []*Term
	for _, t := range s.terms {
		if t.Process == p.slot && t.Life == p.life && t.End.IsZero() {
			open = append(open, t)
		}
	}
	s.mu.Unlock()
	for _, t := range open {
		s.endTerm(t, p, at, true)
	}
}
