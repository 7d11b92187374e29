// Package sqlclaim claims jobs by moving a lease column to now() plus a
// fixed interval; the claim itself (or the poller) takes rows whose lease
// has passed, and the handler runs with no extension of the lease.
package sqlclaim

import (
	"context"
	"database/sql"
)

type Handler interface {
	Handle(ctx context.Context, payload []byte) error
}

type Queue struct {
	db  *sql.DB
	run func(ctx context.Context, id int64, payload []byte) error
	h   Handler
}

// claimJob takes the first job nobody holds or whose lease has passed.
const claimJob = `UPDATE jobs SET locked_until = now() + interval '30 seconds'
	WHERE id = (SELECT id FROM jobs WHERE locked_until IS NULL OR locked_until < now() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
	RETURNING id, payload`

// next claims one job in one statement and runs it.
func (q *Queue) next(ctx context.Context) error {
	var id int64
	var payload []byte
	err := q.db.QueryRowContext(ctx, claimJob).Scan(&id, &payload) // want `the UPDATE of jobs.locked_until claims an item for a fixed 30s .*the statement taking rows whose locked_until has passed \(line 30\).*the callback run called with it`
	if err != nil {
		return err
	}
	if err := q.run(ctx, id, payload); err != nil {
		return err
	}
	_, err = q.db.ExecContext(ctx, `DELETE FROM jobs WHERE id = $1`, id)
	return err
}

// nextTask picks a row under FOR UPDATE SKIP LOCKED, sets its visibility
// in the same transaction and hands it to the handler after the commit.
func (q *Queue) nextTask(ctx context.Context) error {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	var payload []byte
	if err := tx.QueryRowContext(ctx, `SELECT id, payload FROM tasks WHERE visible_at <= now() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&id, &payload); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET visible_at = now() + '2 minutes'::interval WHERE id = $1`, id); err != nil { // want `the UPDATE of tasks.visible_at claims an item for a fixed 2m0s.*the handler Handle called with it`
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return q.h.Handle(ctx, payload)
}

// touchFirst moves the lease of job 1 only: a fixed row, no renewal of
// the job being run by next.
func (q *Queue) touchFirst(ctx context.Context) error {
	_, err := q.db.ExecContext(ctx, `UPDATE jobs SET locked_until = now() + interval '30 seconds' WHERE id = 1`)
	return err
}

// nextUnknown claims with a lease the caller computes: the expiry cannot
// be read, no report.
func (q *Queue) nextUnknown(ctx context.Context, until any) error {
	var id int64
	var payload []byte
	err := q.db.QueryRowContext(ctx, `UPDATE jobs SET locked_until = $1
		WHERE id = (SELECT id FROM jobs WHERE locked_until < now() LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, payload`, until).Scan(&id, &payload)
	if err != nil {
		return err
	}
	return q.run(ctx, id, payload)
}
