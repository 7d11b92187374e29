package renewdeadline

import (
	"context"
	"database/sql"
	"time"
)

// rowLease is a lease row: holder and expires_at, renewed by its holder.
type rowLease struct {
	db        *sql.DB
	name      string
	holder    string
	ttl       time.Duration
	expiresAt time.Time
}

// renew bounds each UPDATE by the expiry it writes.
func (l *rowLease) renew(ctx context.Context, stop context.CancelFunc) {
	for {
		time.Sleep(l.ttl / 3)
		until := time.Now().Add(l.ttl)
		uctx, done := context.WithDeadline(ctx, until)
		res, err := l.db.ExecContext(uctx, `UPDATE leases SET expires_at = $1 WHERE name = $2 AND holder = $3`, until, l.name, l.holder) // want `this renewal is bounded by the new expiry it asks for`
		done()
		if err != nil {
			stop()
			return
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			stop()
			return
		}
		l.expiresAt = until
	}
}

// renewSaved bounds each UPDATE by the expiry saved from the previous
// success.
func (l *rowLease) renewSaved(ctx context.Context, stop context.CancelFunc) {
	for {
		time.Sleep(l.ttl / 3)
		until := time.Now().Add(l.ttl)
		uctx, done := context.WithDeadline(ctx, l.expiresAt)
		res, err := l.db.ExecContext(uctx, `UPDATE leases SET expires_at = $1 WHERE name = $2 AND holder = $3`, until, l.name, l.holder)
		done()
		if err != nil {
			stop()
			return
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			stop()
			return
		}
		l.expiresAt = until
	}
}

// reassert writes the expiry the row already has, bounded by it: a check
// that the row is still held, which never outlives the hold.
func (l *rowLease) reassert(ctx context.Context, stop context.CancelFunc) {
	for {
		time.Sleep(l.ttl / 3)
		uctx, done := context.WithDeadline(ctx, l.expiresAt)
		res, err := l.db.ExecContext(uctx, `UPDATE leases SET expires_at = $1 WHERE name = $2 AND holder = $3`, l.expiresAt, l.name, l.holder)
		done()
		if err != nil {
			stop()
			return
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			stop()
			return
		}
	}
}
