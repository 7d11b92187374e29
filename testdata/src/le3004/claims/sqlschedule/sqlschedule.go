// Package sqlschedule moves a job to a minute after the time it was due:
// the new locked_until is a schedule computed from the row, not a lease
// from now, so it is no claim (sqlparam's next is the twin that leases
// from time.Now()).
package sqlschedule

import (
	"context"
	"database/sql"
	"time"
)

const lockTimeout = time.Minute

type Queue struct {
	db  *sql.DB
	run func(ctx context.Context, id int64, payload []byte) error
}

// postpone moves a job to a minute after the time it was due: a schedule,
// not a lease from now.
func (q *Queue) postpone(ctx context.Context) error {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	var due time.Time
	var payload []byte
	row := tx.QueryRowContext(ctx, "SELECT id, due, payload FROM jobs WHERE locked_until < ? LIMIT 1 FOR UPDATE SKIP LOCKED", time.Now())
	if err := row.Scan(&id, &due, &payload); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET locked_until = ? WHERE id = ?", due.Add(lockTimeout), id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return q.run(ctx, id, payload)
}
