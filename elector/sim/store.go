package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
)

var (
	errDropped     = errors.New("sim: request or response dropped")
	errPartitioned = errors.New("sim: process partitioned from the store")
	errCrashed     = errors.New("sim: process crashed")
	errHung        = errors.New("sim: connection broke after hanging")
)

// faultyStore is one process's client of the shared in-memory store: it pauses with
// the process and drops, delays and partitions calls as the seed decides.
type faultyStore struct {
	p *proc
	s *memserver.Server
}

type fate struct {
	before, after       time.Duration
	dropReq, dropAnswer bool
	// hangReq and hangAnswer are how long the request or its answer hangs
	// (zero: no hang); ignoresCtx makes the client wait a hang out even
	// after its context ended.
	hangReq, hangAnswer time.Duration
	ignoresCtx          bool
}

// Operation codes mix into the fate of a call.
const (
	opAcquire = iota + 1
	opRenew
	opRelease
	opRead
)

// decide draws the fate of a call from the process seed, the operation, its
// token and the instant it is made, not from a shared random stream: two
// goroutines of one process calling at one instant then get the same fates
// whichever runs first, which keeps seeds reproducible. Every request and
// answer takes at least 0.1-1 ms, so calls woken at one instant (standbys
// woken by one release) reach the store in a seed-determined order.
func (f *faultyStore) decide(op int, token uint64) fate {
	p, cfg := f.p, &f.p.sim.cfg
	r := rand.New(rand.NewPCG(p.seed^uint64(op)<<56^token, uint64(time.Now().UnixNano())))
	latency := func() time.Duration {
		return 100*time.Microsecond + time.Duration(r.Int64N(int64(900*time.Microsecond)))
	}
	x := fate{before: latency(), after: latency()}
	if r.Float64() < cfg.DelayRate {
		x.before += time.Duration(r.Int64N(int64(cfg.MaxDelay)))
	}
	if r.Float64() < cfg.DelayRate {
		x.after += time.Duration(r.Int64N(int64(cfg.MaxDelay)))
	}
	x.dropReq = r.Float64() < cfg.DropRate
	x.dropAnswer = r.Float64() < cfg.DropRate
	if r.Float64() < cfg.HangRate {
		x.hangReq = randDur(r, cfg.MaxHang) + time.Millisecond
	}
	if r.Float64() < cfg.HangRate {
		x.hangAnswer = randDur(r, cfg.MaxHang) + time.Millisecond
	}
	x.ignoresCtx = r.IntN(2) == 0
	return x
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call runs apply as a network round trip: the request leaves when the
// process runs, may be delayed or dropped, and the answer may be delayed or
// dropped after the store applied it.
func (f *faultyStore) call(ctx context.Context, op int, token uint64, apply func() error) error {
	p := f.p
	if p.dead.Load() {
		return errCrashed
	}
	if err := p.pauses.waitRunning(ctx, 0); err != nil {
		return err
	}
	x := f.decide(op, token)
	if err := sleepCtx(ctx, x.before); err != nil {
		return err
	}
	if p.partitioned(time.Now()) {
		return errPartitioned
	}
	if x.dropReq {
		return errDropped
	}
	if x.hangReq > 0 {
		p.sim.hung()
		return hang(ctx, x.hangReq, x.ignoresCtx)
	}
	if p.dead.Load() {
		return errCrashed
	}
	err := apply()
	if x.hangAnswer > 0 {
		p.sim.hung()
		return hang(ctx, x.hangAnswer, x.ignoresCtx)
	}
	if err2 := sleepCtx(ctx, x.after); err2 != nil {
		return err2
	}
	if x.dropAnswer || p.partitioned(time.Now()) {
		return errDropped
	}
	if err2 := p.pauses.waitRunning(ctx, answerLag); err2 != nil {
		return err2
	}
	return err
}

// hang models a request or answer lost on a half-open connection: nothing
// comes back for d, then the connection breaks. A client that honours its
// context gives up when ctx ends.
func hang(ctx context.Context, d time.Duration, ignoresCtx bool) error {
	if ignoresCtx {
		ctx = context.Background()
	}
	if err := sleepCtx(ctx, d); err != nil {
		return err
	}
	return errHung
}

func (f *faultyStore) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	defer f.p.sim.callStarted()()
	var t elector.Term
	if err := f.p.pauses.waitRunning(ctx, 0); err != nil {
		return t, err
	}
	sent := time.Now()
	err := f.call(ctx, opAcquire, 0, func() error {
		var err error
		t, err = f.s.Acquire(context.Background(), name, holder, ttl)
		if err == nil {
			f.p.sim.granted(t, sent)
		}
		return err
	})
	return t, err
}

func (f *faultyStore) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	defer f.p.sim.callStarted()()
	if err := f.p.pauses.waitRunning(ctx, 0); err != nil {
		return err
	}
	i := f.p.sim.renewSent(t.Token)
	err := f.call(ctx, opRenew, t.Token, func() error { return f.s.Renew(context.Background(), t, ttl) })
	if !f.p.dead.Load() {
		f.p.sim.renewAnswered(i, err == nil)
	}
	return err
}

func (f *faultyStore) Release(ctx context.Context, t elector.Term) error {
	defer f.p.sim.callStarted()()
	return f.call(ctx, opRelease, t.Token, func() error { return f.s.Release(context.Background(), t) })
}

func (f *faultyStore) Read(ctx context.Context, name string) (elector.Record, error) {
	defer f.p.sim.callStarted()()
	var r elector.Record
	err := f.call(ctx, opRead, 0, func() error {
		var err error
		r, err = f.s.Read(context.Background(), name)
		return err
	})
	return r, err
}

func (f *faultyStore) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	if f.p.dead.Load() {
		return nil, errCrashed
	}
	if f.p.partitioned(time.Now()) {
		return nil, errPartitioned
	}
	return f.s.Watch(ctx, name)
}
