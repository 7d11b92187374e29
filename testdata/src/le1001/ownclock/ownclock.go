// Package ownclock: jobs paced by a project's own clock abstraction.
package ownclock

import (
	"context"
	"database/sql"
	"time"

	"le1001/ownclock/clock"
	"le1001/ownclock/ports"
)

type biller struct {
	db  *sql.DB
	clk clock.Clock
}

func (b *biller) charge(ctx context.Context) {
	b.db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
}

// Positive: the clock's NewTicker wraps time.NewTicker.
func (b *biller) run(ctx context.Context) {
	t := b.clk.NewTicker(time.Hour) // want `clock.Clock.NewTicker runs loop body on every replica every 1h0m0s: it inserts into table charges`
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			b.charge(ctx)
		}
	}
}

// Positive: an interface declared apart from its implementation
// (ports.Pacer, implemented in wallclock) makes a ticker too.
func (b *biller) pacedApart(ctx context.Context, p ports.Pacer) {
	t := p.NewTicker(time.Hour) // want `ports.Pacer.NewTicker runs loop body on every replica every 1h0m0s: it inserts into table charges`
	defer t.Stop()
	for range t.C {
		b.charge(ctx)
	}
}

// Positive: its timer, re-armed.
func (b *biller) rearmed(ctx context.Context) {
	t := b.clk.NewTimer(time.Minute) // want `clock.Clock.NewTimer runs loop body on every replica every 1m0s: it inserts into table charges`
	for range t.C() {
		b.charge(ctx)
		t.Reset(time.Minute)
	}
}

// Negative: the timer is never re-armed (twin: rearmed).
func (b *biller) once(ctx context.Context) {
	t := b.clk.NewTimer(time.Minute)
	for range t.C() {
		b.charge(ctx)
	}
}

// Negative: one Pacer ticks only when fed by hand, so which one runs
// decides (twin: wall, whose only implementation wraps time.NewTicker).
func (b *biller) paced(ctx context.Context, p clock.Pacer) {
	t := p.NewTicker(time.Minute)
	for range t.C() {
		b.charge(ctx)
	}
}

func (b *biller) wall(ctx context.Context, w clock.Wall) {
	t := w.NewTicker(time.Minute) // want `clock.Wall.NewTicker runs loop body on every replica every 1m0s: it inserts into table charges`
	for range t.C() {
		b.charge(ctx)
	}
}

// Negative: latestPacer is a real implementation that ticks by hand (a name
// containing "test" is no test double; twin: wall).
func (b *biller) latest(ctx context.Context, l clock.Latest) {
	t := l.NewTicker(time.Minute)
	for range t.C() {
		b.charge(ctx)
	}
}
