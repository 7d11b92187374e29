// Package anyholder: a task table whose claim records the holder, and
// renewals that do or do not ask for it.
package anyholder

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

type queue struct {
	db     *sql.DB
	worker string
	ttl    time.Duration
}

// claim takes a free task for this worker.
func (q *queue) claim(ctx context.Context) (int64, error) {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM tasks WHERE locked_until < ? LIMIT 1 FOR UPDATE SKIP LOCKED`, time.Now()).Scan(&id); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET locked_until = ?, worker = ? WHERE id = ?`, time.Now().Add(q.ttl), q.worker, id); err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// Positive: the renewal does not ask who holds the task: after another
// worker took it over, this one extends the other's hold and goes on.
func (q *queue) extend(ctx context.Context, id int64) error {
	_, err := q.db.ExecContext(ctx, `UPDATE tasks SET locked_until = ? WHERE id = ?`, time.Now().Add(q.ttl), id) // want `\(sql.DB\).ExecContext renews a row of tasks keyed by the row alone, while the claim at anyholder.go:29 records its holder`
	return err
}

// Negative (twin: extend): the holder is in the WHERE clause and no row
// renewed is an error.
func (q *queue) extendOwn(ctx context.Context, id int64) error {
	res, err := q.db.ExecContext(ctx, `UPDATE tasks SET locked_until = ? WHERE id = ? AND worker = ?`, time.Now().Add(q.ttl), id, q.worker)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.New("task lease lost")
	}
	return nil
}

// Negative (twin: extend): a retry later that also counts the attempt is
// no renewal of a hold.
func (q *queue) retryLater(ctx context.Context, id int64, after time.Duration) error {
	_, err := q.db.ExecContext(ctx, `UPDATE tasks SET locked_until = ?, attempts = attempts + 1 WHERE id = ?`, time.Now().Add(after), id)
	return err
}

// Negative (twin: extend): a table whose claim records no holder.
func (q *queue) extendNote(ctx context.Context, id int64) error {
	_, err := q.db.ExecContext(ctx, `UPDATE notes SET locked_until = ? WHERE id = ?`, time.Now().Add(q.ttl), id)
	return err
}
