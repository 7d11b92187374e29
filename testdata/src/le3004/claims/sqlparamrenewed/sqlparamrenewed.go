// Package sqlparamrenewed is sqlparam with a heartbeat that moves the
// job's locked_until on (keyed by its id and this worker) while it runs.
package sqlparamrenewed

import (
	"context"
	"database/sql"
	"time"
)

const lockTimeout = time.Minute

type Queue struct {
	db      *sql.DB
	name    string
	timeout time.Duration
	run     func(ctx context.Context, id int64, payload []byte) error
}

func New(db *sql.DB, timeout time.Duration) *Queue {
	return &Queue{db: db, timeout: timeout}
}

func (q *Queue) next(ctx context.Context) error {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	var payload []byte
	row := tx.QueryRowContext(ctx, "SELECT id, payload FROM jobs WHERE locked_until IS NULL OR locked_until < ? ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", time.Now())
	if err := row.Scan(&id, &payload); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET locked_until = ?, worker = ? WHERE id = ?", time.Now().Add(lockTimeout), q.name, id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return q.run(ctx, id, payload)
}

// nextConfigured leases for a duration the caller chose: not readable.
func (q *Queue) nextConfigured(ctx context.Context) error {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	var payload []byte
	row := tx.QueryRowContext(ctx, "SELECT id, payload FROM tasks WHERE locked_until < $1 LIMIT 1 FOR UPDATE SKIP LOCKED", time.Now().UTC())
	if err := row.Scan(&id, &payload); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE tasks SET locked_until = $1 WHERE id = $2", time.Now().Add(q.timeout).UTC(), id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return q.run(ctx, id, payload)
}

// Extend is called by the worker every 20 s while the job runs.
func (q *Queue) Extend(ctx context.Context, id int64) error {
	res, err := q.db.ExecContext(ctx, "UPDATE jobs SET locked_until = ? WHERE id = ? AND worker = ?", time.Now().Add(lockTimeout), id, q.name)
	if err != nil {
		return err
	}
	_, err = res.RowsAffected()
	return err
}
