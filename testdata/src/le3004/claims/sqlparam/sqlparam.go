// Package sqlparam claims jobs with lease times computed in Go: the SELECT
// takes rows whose locked_until is before time.Now(), the UPDATE sets it to
// time.Now().Add(lockTimeout), and the job runs with no extension.
package sqlparam

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

// New leases for 30 s unless timeout says otherwise.
func New(db *sql.DB, timeout time.Duration) *Queue {
	q := &Queue{db: db, timeout: 30 * time.Second}
	if timeout > 0 {
		q.timeout = timeout
	}
	return q
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
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET locked_until = ?, worker = ? WHERE id = ?", time.Now().Add(lockTimeout), q.name, id); err != nil { // want `the UPDATE of jobs.locked_until claims an item for a fixed 1m0s \(time.Now\(\).Add\(1m0s\) as its argument\).*the callback run called with it`
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
