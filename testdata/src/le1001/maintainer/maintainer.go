// Package maintainer: services started by a maintainer only when its client
// is elected, and the same shapes started by nobody in particular.
package maintainer

import (
	"context"
	"database/sql"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

type service interface{ Start(ctx context.Context) }

// maintainer holds a list of services and starts them all when elected.
type maintainer struct{ services []service }

func (m *maintainer) run(ctx context.Context, lec leaderelection.LeaderElectionConfig) {
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { m.startAll(ctx) },
		OnStoppedLeading: func() {},
	}
	leaderelection.RunOrDie(ctx, lec)
}

func (m *maintainer) startAll(ctx context.Context) {
	for _, s := range m.services {
		s.Start(ctx)
	}
}

type purger struct{ db *sql.DB }

// Negative: a ticker service reached only through the elected maintainer's
// interface calls.
func (p *purger) Start(ctx context.Context) {
	go func() {
		for range time.Tick(time.Hour) {
			p.db.ExecContext(ctx, `INSERT INTO purge_runs (at) VALUES (now())`)
		}
	}()
}

type rescuer struct {
	db *sql.DB
	t  *time.Timer
}

// Negative: its sibling, a re-armed timer, gets the same verdict.
func (r *rescuer) Start(ctx context.Context) {
	r.t = time.AfterFunc(time.Minute, r.rescue)
}

func (r *rescuer) rescue() {
	r.db.Exec(`INSERT INTO rescues (at) VALUES (now())`)
	r.t.Reset(time.Minute)
}

type task interface{ Run(ctx context.Context) }

// pool starts its tasks with no election anywhere.
type pool struct{ tasks []task }

func (p *pool) startAll(ctx context.Context) {
	for _, t := range p.tasks {
		t.Run(ctx)
	}
}

func startPool(ctx context.Context, p *pool) { p.startAll(ctx) }

type sweeper struct{ db *sql.DB }

// Positive twin of purger: the interface call that starts it is not gated.
func (s *sweeper) Run(ctx context.Context) {
	go func() {
		for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table sweeps; guarded by nothing`
			s.db.ExecContext(ctx, `INSERT INTO sweeps (at) VALUES (now())`)
		}
	}()
}

type retrier struct {
	db *sql.DB
	t  *time.Timer
}

// Positive twin of rescuer.
func (r *retrier) Run(ctx context.Context) {
	r.t = time.AfterFunc(time.Minute, r.retry) // want `time.AfterFunc runs maintainer.retrier.retry on every replica every 1m0s: it inserts into table retries; guarded by nothing`
}

func (r *retrier) retry() {
	r.db.Exec(`INSERT INTO retries (at) VALUES (now())`)
	r.t.Reset(time.Minute)
}

// hooks keeps callbacks in fields, called later.
type hooks struct {
	onElected func(ctx context.Context)
	onTick    func(ctx context.Context)
}

func (h *hooks) elect(ctx context.Context, lec leaderelection.LeaderElectionConfig) {
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { h.onElected(ctx) },
		OnStoppedLeading: func() {},
	}
	leaderelection.RunOrDie(ctx, lec)
}

func (h *hooks) tick(ctx context.Context) { go h.onTick(ctx) }

func wire(h *hooks, db *sql.DB) {
	h.onElected = (&janitor{db: db}).loop
	h.onTick = (&counter{db: db}).loop
}

type janitor struct{ db *sql.DB }

// Negative: stored in a field that only the election callback calls.
func (j *janitor) loop(ctx context.Context) {
	for range time.Tick(time.Hour) {
		j.db.ExecContext(ctx, `INSERT INTO janitor_runs (at) VALUES (now())`)
	}
}

type counter struct{ db *sql.DB }

// Positive twin of janitor: stored in a field called from a plain goroutine.
func (c *counter) loop(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table counts; guarded by nothing`
		c.db.ExecContext(ctx, `INSERT INTO counts (at) VALUES (now())`)
	}
}

type dual struct{ db *sql.DB }

func (d *dual) Start(ctx context.Context) { d.loop(ctx) }
func (d *dual) Run(ctx context.Context)   { d.loop(ctx) }

// Positive: one of its two entries (the maintainer's) is gated, the other
// (the pool's) is not.
func (d *dual) loop(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table dual_runs; guarded by nothing`
		d.db.ExecContext(ctx, `INSERT INTO dual_runs (at) VALUES (now())`)
	}
}

type beacon struct{ db *sql.DB }

func (b *beacon) elect(ctx context.Context, lec leaderelection.LeaderElectionConfig) {
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { b.start() },
		OnStoppedLeading: func() {},
	}
	leaderelection.RunOrDie(ctx, lec)
}

func (b *beacon) start() { b.tick() }

// Negative: a self-armed timer first run (two calls down) by an election
// callback; its own re-arm is no entry of its own.
func (b *beacon) tick() {
	b.db.Exec(`INSERT INTO beacons (at) VALUES (now())`)
	time.AfterFunc(time.Minute, b.tick)
}

// A chain of starters eight calls deep below an election callback. The
// search for entry points stops six functions up: deep1's ticker is beyond
// it and reported (the bound is a trade-off of cost for reach), deep4's is
// within it; deep4's answer must not be the one cut short while deep1 was
// judged.
type deep struct{ db *sql.DB }

func (d *deep) deep1(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table deep_runs; guarded by nothing`
		d.db.ExecContext(ctx, `INSERT INTO deep_runs (at) VALUES (now())`)
	}
}
func (d *deep) deep2(ctx context.Context) { d.deep1(ctx) }
func (d *deep) deep3(ctx context.Context) { d.deep2(ctx) }

// Negative: four calls below the callback.
func (d *deep) deep4(ctx context.Context) {
	d.deep3(ctx)
	for range time.Tick(time.Hour) {
		d.db.ExecContext(ctx, `INSERT INTO deep_runs (at) VALUES (now())`)
	}
}
func (d *deep) deep5(ctx context.Context) { d.deep4(ctx) }
func (d *deep) deep6(ctx context.Context) { d.deep5(ctx) }
func (d *deep) deep7(ctx context.Context) { d.deep6(ctx) }
func (d *deep) deep8(ctx context.Context) { d.deep7(ctx) }

func (d *deep) elect(ctx context.Context, lec leaderelection.LeaderElectionConfig) {
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { d.deep8(ctx) },
		OnStoppedLeading: func() {},
	}
	leaderelection.RunOrDie(ctx, lec)
}
