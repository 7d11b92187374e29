// Package iface: jobs that call their store through a project interface.
package iface

import (
	"context"
	"database/sql"
	"time"
)

type Billing interface {
	ChargeDue(ctx context.Context) error
}

type pgBilling struct{ db *sql.DB }

func (p *pgBilling) ChargeDue(ctx context.Context) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
	return err
}

// A test double is not what runs in production.
type mockBilling struct{}

func (mockBilling) ChargeDue(ctx context.Context) error { return nil }

// Positive: the only real implementation inserts.
func Run(ctx context.Context, b Billing) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table charges \(via iface.\(\*pgBilling\).ChargeDue\)`
		b.ChargeDue(ctx)
	}
}

type Warmer interface {
	Warm(ctx context.Context) error
}

type sqlWarmer struct{ db *sql.DB }

func (w *sqlWarmer) Warm(ctx context.Context) error {
	_, err := w.db.ExecContext(ctx, `UPDATE cache_state SET warmed_at = now(), generation = 2`)
	return err
}

type localWarmer struct{ m map[string]int }

func (w *localWarmer) Warm(ctx context.Context) error { w.m["x"]++; return nil }

// Negative: one implementation has no shared effect, so which one runs
// decides, and the analysis cannot see that.
func Warm(ctx context.Context, w Warmer) {
	for range time.Tick(time.Minute) {
		w.Warm(ctx)
	}
}
