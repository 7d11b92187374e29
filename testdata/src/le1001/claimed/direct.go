package claimed

import (
	"context"
	"database/sql"
	"time"
)

// take claims one ready message and returns its ID.
func take(ctx context.Context, db *sql.DB) (string, error) {
	var id string
	err := db.QueryRowContext(ctx, `UPDATE messages SET status = 'taken' WHERE status = 'ready' RETURNING id`).Scan(&id)
	return id, err
}

// next reads the ID of the next ready message without taking it.
func next(ctx context.Context, db *sql.DB) (string, error) {
	var id string
	err := db.QueryRowContext(ctx, `SELECT id FROM messages WHERE status = 'ready' LIMIT 1`).Scan(&id)
	return id, err
}

// Negative: the closure's own statement is keyed by the ID take claimed.
func holdTaken(ctx context.Context, db *sql.DB, work func(string)) {
	id, err := take(ctx, db)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Second):
				db.ExecContext(ctx, `UPDATE messages SET visible_at = visible_at + interval '30 seconds' WHERE id = $1`, id)
			}
		}
	}()
	work(id)
	close(done)
}

// Positive twin: the same statement keyed by an ID only read.
func holdNext(ctx context.Context, db *sql.DB, work func(string)) {
	id, err := next(ctx, db)
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		for { // want `for loop paced by time.After runs loop body on every replica every 10s: it increments table messages; guarded by nothing`
			select {
			case <-done:
				return
			case <-time.After(10 * time.Second):
				db.ExecContext(ctx, `UPDATE messages SET visible_at = visible_at + interval '30 seconds' WHERE id = $1`, id)
			}
		}
	}()
	work(id)
	close(done)
}
