// Package clocks: schedulers behind injectable clocks.
package clocks

import (
	"context"
	"database/sql"
	"time"

	bclock "github.com/benbjohnson/clock"
	"github.com/jonboulle/clockwork"
	kclock "k8s.io/utils/clock"
)

type billing struct {
	db  *sql.DB
	clk bclock.Clock
}

func (b *billing) charge(ctx context.Context) {
	b.db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
}

// Positive: benbjohnson/clock's Ticker delivers on its C field.
func (b *billing) run(ctx context.Context) {
	t := b.clk.Ticker(time.Hour) // want `clock.Clock.Ticker runs loop body on every replica every 1h0m0s: it inserts into table charges`
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.charge(ctx)
		}
	}
}

// Positive: a sleep loop paced by the clock.
func (b *billing) poll(ctx context.Context) {
	for { // want `for loop paced by clock.Clock.Sleep runs loop body on every replica every 5m0s: it inserts into table charges`
		b.charge(ctx)
		b.clk.Sleep(5 * time.Minute)
	}
}

// Positive: k8s.io/utils/clock's ticker delivers on a C() method.
func chargeK8s(ctx context.Context, db *sql.DB, clk kclock.WithTicker) {
	t := clk.NewTicker(time.Minute) // want `clock.WithTicker.NewTicker runs loop body on every replica every 1m0s: it inserts into table charges`
	for range t.C() {
		db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
	}
}

// Negative: a k8s clock timer that is never re-armed fires once.
func once(ctx context.Context, db *sql.DB, clk kclock.Clock) {
	t := clk.NewTimer(time.Minute)
	for {
		<-t.C()
		db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
	}
}

// Positive twin of once: re-armed with Reset, the timer is periodic.
func rearmed(ctx context.Context, db *sql.DB, clk kclock.Clock) {
	t := clk.NewTimer(time.Minute) // want `clock.Clock.NewTimer runs loop body on every replica every 1m0s: it inserts into table charges`
	for {
		<-t.C()
		db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
		t.Reset(time.Minute)
	}
}

// Positive: clockwork's ticker delivers on a Chan() method.
func chargeClockwork(ctx context.Context, db *sql.DB, clk clockwork.Clock) {
	t := clk.NewTicker(30 * time.Second) // want `clockwork.Clock.NewTicker runs loop body on every replica every 30s: it inserts into table charges`
	defer t.Stop()
	for range t.Chan() {
		db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
	}
}

// Positive: a clock's AfterFunc whose callback re-arms its timer.
func (b *billing) selfRearming(ctx context.Context) {
	var t *bclock.Timer
	t = b.clk.AfterFunc(time.Minute, func() { // want `clock.Clock.AfterFunc runs func literal on every replica every 1m0s: it inserts into table charges`
		b.charge(ctx)
		t.Reset(time.Minute)
	})
}

// Negative: clockwork's AfterFunc that fires once.
func (b *billing) later(ctx context.Context, clk clockwork.Clock) {
	clk.AfterFunc(time.Minute, func() { b.charge(ctx) })
}
