// Package sqlrenewed is sqlclaim's next with a heartbeat: a goroutine moves
// the job's lease on while the handler runs.
package sqlrenewed

import (
	"context"
	"database/sql"
	"time"
)

type Queue struct {
	db  *sql.DB
	run func(ctx context.Context, id int64, payload []byte) error
}

func (q *Queue) next(ctx context.Context) error {
	var id int64
	var payload []byte
	err := q.db.QueryRowContext(ctx, `UPDATE jobs SET locked_until = now() + interval '30 seconds'
		WHERE id = (SELECT id FROM jobs WHERE locked_until IS NULL OR locked_until < now() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, payload`).Scan(&id, &payload)
	if err != nil {
		return err
	}
	hbCtx, stop := context.WithCancel(ctx)
	defer stop()
	go q.heartbeat(hbCtx, id)
	return q.run(ctx, id, payload)
}

func (q *Queue) heartbeat(ctx context.Context, id int64) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			q.db.ExecContext(ctx, `UPDATE jobs SET locked_until = now() + interval '30 seconds' WHERE id = $1`, id)
		}
	}
}
