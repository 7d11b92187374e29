// Package tasks keeps a table of tasks that workers take by marking them
// dispatched with a conditional UPDATE.
package tasks

import (
	"context"
	"database/sql"
	"time"
)

const (
	nextQuery  = `SELECT id, dispatched_at FROM tasks WHERE done = false ORDER BY id LIMIT 1`
	markQuery  = `UPDATE tasks SET dispatched_at = $2 WHERE id = $1 AND dispatched_at = $3`
	touchQuery = `UPDATE tasks SET dispatched_at = $2 WHERE id = $1`
)

type Task struct {
	ID           int64
	DispatchedAt time.Time
}

type Store struct{ db *sql.DB }

func (s *Store) Next(ctx context.Context) (*Task, error) {
	var t Task
	err := s.db.QueryRowContext(ctx, nextQuery).Scan(&t.ID, &t.DispatchedAt)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// MarkDispatched claims t: only the caller whose UPDATE still saw the old
// dispatch time gets true.
func (s *Store) MarkDispatched(ctx context.Context, t *Task) (bool, error) {
	now := time.Now()
	res, err := s.db.ExecContext(ctx, markQuery, t.ID, now, t.DispatchedAt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return false, err
	}
	t.DispatchedAt = now
	return true, nil
}

// Touch is MarkDispatched's shape over an UPDATE that claims nothing.
func (s *Store) Touch(ctx context.Context, t *Task) (bool, error) {
	res, err := s.db.ExecContext(ctx, touchQuery, t.ID, time.Now())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return false, err
	}
	return true, nil
}

// Record adds a result row for t: accumulating.
func (s *Store) Record(ctx context.Context, t *Task, out string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO results (task_id, output) VALUES ($1, $2)`, t.ID, out)
	return err
}
