// Package txqueue is a work queue kept in a table, whose operations each
// run in a transaction callback: Take claims a job with a compare-and-set
// inside the callback and hands the claimed job out through a variable the
// callback captured, so the claim's answer leaves the package as Take's
// result, not as a claim helper's own return.
package txqueue

import (
	"context"
	"database/sql"
	"time"
)

type Queue struct {
	db    *sql.DB
	owner string
}

type Job struct {
	ID      int64
	Payload []byte
}

// Lease is what a worker holds: the job it claimed, and who it is.
type Lease struct {
	JobID int64
	Owner string
}

func inTx(db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// takeTx claims the oldest ready job: only a row still ready is moved.
func (q *Queue) takeTx(ctx context.Context, tx *sql.Tx) (*Job, error) {
	var j Job
	err := tx.QueryRowContext(ctx, `UPDATE jobs SET state = 'running', lease_until = now() + interval '1 minute'
		WHERE id = (SELECT id FROM jobs WHERE state = 'ready' ORDER BY id LIMIT 1) AND state = 'ready'
		RETURNING id, payload`).Scan(&j.ID, &j.Payload)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// peekTx reads the oldest ready job and takes nothing.
func (q *Queue) peekTx(ctx context.Context, tx *sql.Tx) (*Job, error) {
	var j Job
	err := tx.QueryRowContext(ctx, `SELECT id, payload FROM jobs WHERE state = 'ready' ORDER BY id LIMIT 1`).Scan(&j.ID, &j.Payload)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// touchTx marks every job seen and returns one: an UPDATE that tests
// nothing, so every replica moves the same rows; it claims nothing.
func (q *Queue) touchTx(ctx context.Context, tx *sql.Tx) (*Job, error) {
	var j Job
	err := tx.QueryRowContext(ctx, `UPDATE jobs SET seen_at = now() RETURNING id, payload`).Scan(&j.ID, &j.Payload)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// Take claims a job in a transaction; the callback stores the claimed job
// into a variable of Take.
func (q *Queue) Take(ctx context.Context) (*Job, error) {
	var j *Job
	err := inTx(q.db, func(tx *sql.Tx) error {
		var err error
		j, err = q.takeTx(ctx, tx)
		return err
	})
	return j, err
}

// Peek is Take's shape over a read that claims nothing.
func (q *Queue) Peek(ctx context.Context) (*Job, error) {
	var j *Job
	err := inTx(q.db, func(tx *sql.Tx) error {
		var err error
		j, err = q.peekTx(ctx, tx)
		return err
	})
	return j, err
}

// Touch is Take's shape over an UPDATE that claims nothing.
func (q *Queue) Touch(ctx context.Context) (*Job, error) {
	var j *Job
	err := inTx(q.db, func(tx *sql.Tx) error {
		var err error
		j, err = q.touchTx(ctx, tx)
		return err
	})
	return j, err
}

// TakeWait polls Take until a job is claimed. The deferred Stop keeps the
// results in a cell, which holds nil on the paths that claimed nothing.
func (q *Queue) TakeWait(ctx context.Context, every time.Duration) (*Job, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			j, err := q.Take(ctx)
			if err != nil {
				return nil, err
			}
			if j != nil {
				return j, nil
			}
		}
	}
}

// TakeID returns the ID of a claimed job, 0 for none.
func (q *Queue) TakeID(ctx context.Context) (int64, error) {
	defer q.note("take")
	j, err := q.Take(ctx)
	if err != nil || j == nil {
		return 0, err
	}
	return j.ID, nil
}

// TakeIDOrFirst returns the ID of a claimed job, or job 1 when none was
// claimed: a row every replica names.
func (q *Queue) TakeIDOrFirst(ctx context.Context) (int64, error) {
	defer q.note("take")
	j, err := q.Take(ctx)
	if err != nil || j == nil {
		return 1, err
	}
	return j.ID, nil
}

// TakeIDOrOne is TakeIDOrFirst without the deferred call: the constant is
// returned as it is, not through a result cell.
func (q *Queue) TakeIDOrOne(ctx context.Context) (int64, error) {
	j, err := q.Take(ctx)
	if err != nil || j == nil {
		return 1, err
	}
	return j.ID, nil
}

// TakeIDOrZero is TakeIDOrOne's negative: 0 names no job.
func (q *Queue) TakeIDOrZero(ctx context.Context) (int64, error) {
	j, err := q.Take(ctx)
	if err != nil || j == nil {
		return 0, err
	}
	return j.ID, nil
}

// TakeOrPeek claims a job, or only reads one when asked to.
func (q *Queue) TakeOrPeek(ctx context.Context, peek bool) (*Job, error) {
	if peek {
		return q.Peek(ctx)
	}
	return q.Take(ctx)
}

// Lease claims a job and says who holds it: the lease's JobID is the
// claim's answer, its Owner is this worker's configured name.
func (q *Queue) Lease(ctx context.Context) (Lease, error) {
	j, err := q.Take(ctx)
	if err != nil || j == nil {
		return Lease{}, err
	}
	return Lease{JobID: j.ID, Owner: q.owner}, nil
}

func (q *Queue) note(string) {}

// Heartbeat moves the job's lease on and counts the beat, keyed by its ID.
func (q *Queue) Heartbeat(ctx context.Context, id int64) error {
	return inTx(q.db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET lease_until = now() + interval '1 minute', beats = beats + 1 WHERE id = $1`, id)
		return err
	})
}

// CountOwner counts a beat for every job of the owner.
func (q *Queue) CountOwner(ctx context.Context, owner string) error {
	return inTx(q.db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET beats = beats + 1 WHERE owner = $1`, owner)
		return err
	})
}
