package le1001

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// A queue consumer claims one message at a time: the UPDATE picks its row
// with a subquery that tests the row's visibility timeout, moves the
// timeout forward and counts the delivery. Of two replicas polling at once
// only one moves a given row; the returned row is the work.

const claimTask = `UPDATE tasks SET visible_at = ?, deliveries = deliveries + 1
	WHERE id = (SELECT id FROM tasks WHERE topic = ? AND ? >= visible_at AND deliveries < ? ORDER BY created_at LIMIT 1)
	RETURNING id, payload`

// Positive twin's statement: the subquery tests nothing about the row, so
// every replica moves the same (oldest) row and counts it again.
const bumpOldestTask = `UPDATE tasks SET visible_at = ?, deliveries = deliveries + 1
	WHERE id = (SELECT id FROM tasks ORDER BY created_at LIMIT 1)
	RETURNING id, payload`

type taskQueue struct{ db *sql.DB }

type task struct {
	ID      string
	Payload []byte
}

// take claims the next visible task; no task is (nil, nil).
func (q *taskQueue) take(ctx context.Context, stmt string) (*task, error) {
	var t task
	err := q.db.QueryRowContext(ctx, stmt, time.Now().Add(time.Minute), "mail", time.Now(), 3).Scan(&t.ID, &t.Payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func (q *taskQueue) takeNext(ctx context.Context) (*task, error) { return q.take(ctx, claimTask) }

func (q *taskQueue) takeOldest(ctx context.Context) (*task, error) {
	return q.take(ctx, bumpOldestTask)
}

// Negative: the poll loop waits for a claimed task and returns it.
func (q *taskQueue) waitTask(ctx context.Context) (*task, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		t, err := q.takeNext(ctx)
		if err != nil {
			return nil, err
		}
		if t != nil {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// Positive twin: the same loop over the UPDATE whose subquery has no
// condition on the row.
func (q *taskQueue) waitOldest(ctx context.Context) (*task, error) {
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it increments table tasks \(via le1001.\(\*taskQueue\).take\); guarded by nothing`
	defer tick.Stop()
	for {
		t, err := q.takeOldest(ctx)
		if err != nil {
			return nil, err
		}
		if t != nil {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// Positive twin: the claim runs and its answer is dropped; every replica
// goes on to the same insert.
func (q *taskQueue) claimIgnored(ctx context.Context) {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it updates table tasks, inserts into table task_audit; guarded by nothing`
		q.db.ExecContext(ctx, claimTask, time.Now().Add(time.Minute), "mail", time.Now(), 3)
		q.db.ExecContext(ctx, `INSERT INTO task_audit (at) VALUES (now())`)
	}
}

// Negative: the only test of the claim is sql.ErrNoRows (nothing claimed,
// nothing to do); what follows runs on the replica that won the row.
func (q *taskQueue) auditClaimed(ctx context.Context) {
	for range time.Tick(time.Second) {
		var id string
		err := q.db.QueryRowContext(ctx, claimTask, time.Now().Add(time.Minute), "mail", time.Now(), 3).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		q.db.ExecContext(ctx, `INSERT INTO task_audit (at) VALUES (now())`)
	}
}

// Positive twin: the error is tested, but not for sql.ErrNoRows: a failed
// statement, not a lost claim.
func (q *taskQueue) auditAnyError(ctx context.Context) {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it updates table tasks, inserts into table task_audit; guarded by nothing`
		var id string
		err := q.db.QueryRowContext(ctx, claimTask, time.Now().Add(time.Minute), "mail", time.Now(), 3).Scan(&id)
		if err != nil && !errors.Is(err, context.Canceled) {
			continue
		}
		q.db.ExecContext(ctx, `INSERT INTO task_audit (at) VALUES (now())`)
	}
}
