package le1001

import (
	"context"
	"database/sql"
	"time"
)

type execFunc func(ctx context.Context, q string, args ...any) (sql.Result, error)

// meta runs its statements through a function value it holds.
type meta struct {
	exec execFunc
}

func newMeta(db *sql.DB) *meta { return &meta{exec: db.ExecContext} }

const metaClaim = `INSERT INTO meta (k, last) VALUES ($1, now())
	ON CONFLICT (k) DO UPDATE SET last = now() WHERE meta.last < now() - $2::interval`

// Negative: the compare-and-set upsert, run through the struct's function
// value, gates the work on the affected rows.
func (m *meta) compact(ctx context.Context) {
	for range time.Tick(time.Hour) {
		res, err := m.exec(ctx, metaClaim, "compact", "1 hour")
		if err != nil {
			continue
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue
		}
		m.exec(ctx, `INSERT INTO compactions (at) VALUES (now())`)
	}
}

// Positive twin: the same claim, its affected rows never looked at.
func (m *meta) compactUnchecked(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table compactions; guarded by nothing`
		m.exec(ctx, metaClaim, "compact", "1 hour")
		m.exec(ctx, `INSERT INTO compactions (at) VALUES (now())`)
	}
}
