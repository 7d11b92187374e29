package renewloop

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"time"
)

type task struct {
	ID   int64
	Body []byte
}

// claimTask takes the oldest visible task, hiding it for ttl.
func claimTask(ctx context.Context, db *sql.DB, ttl time.Duration) (*task, error) {
	now := time.Now()
	var t task
	err := db.QueryRowContext(ctx, `UPDATE outbox_tasks SET visible_after = $1 WHERE id = (SELECT id FROM outbox_tasks WHERE $2 >= visible_after ORDER BY id LIMIT 1) RETURNING id, body`,
		now.Add(ttl), now).Scan(&t.ID, &t.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// hideLonger extends the visibility timeout of a claimed task.
func hideLonger(ctx context.Context, db *sql.DB, id int64, ttl time.Duration) error {
	_, err := db.ExecContext(ctx, `UPDATE outbox_tasks SET visible_after = $1 WHERE id = $2`, time.Now().Add(ttl), id)
	return err
}

type worker struct {
	db  *sql.DB
	ttl time.Duration
	run func(context.Context, []byte) error
}

// The extender only logs: the task is claimed again while it runs.
func (w *worker) processOne(ctx context.Context) error {
	t, err := claimTask(ctx, w.db, w.ttl)
	if err != nil || t == nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case <-runCtx.Done():
				return
			case <-time.After(w.ttl / 2):
				if err := hideLonger(runCtx, w.db, t.ID, w.ttl); err != nil { // want `hideLonger renews a row of table outbox_tasks keyed by what a claim returned .*its failure is only logged`
					log.Printf("task %d: extend: %v", t.ID, err)
				}
			}
		}
	}()
	return w.run(runCtx, t.Body)
}

// The extender cancels the task's context when the extension fails: silent.
func (w *worker) processOneCancels(ctx context.Context) error {
	t, err := claimTask(ctx, w.db, w.ttl)
	if err != nil || t == nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case <-runCtx.Done():
				return
			case <-time.After(w.ttl / 2):
				if err := hideLonger(runCtx, w.db, t.ID, w.ttl); err != nil {
					log.Printf("task %d: extend: %v", t.ID, err)
					cancel()
					return
				}
			}
		}
	}()
	return w.run(runCtx, t.Body)
}

// Extends a task ID that was not claimed here (a parameter of an exported
// function): not known to be held, silent.
func (w *worker) Keep(ctx context.Context, id int64) {
	go func() {
		for {
			time.Sleep(w.ttl / 2)
			if err := hideLonger(ctx, w.db, id, w.ttl); err != nil {
				log.Printf("task %d: extend: %v", id, err)
			}
		}
	}()
}
