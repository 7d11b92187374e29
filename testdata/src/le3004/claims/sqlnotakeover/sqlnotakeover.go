// Package sqlnotakeover stamps a lease column when it claims a job, but no
// statement ever takes a job whose lease has passed (only never-claimed
// rows are picked): no other consumer can take the job, nothing to report.
package sqlnotakeover

import (
	"context"
	"database/sql"
)

type Queue struct {
	db  *sql.DB
	run func(ctx context.Context, id int64, payload []byte) error
}

func (q *Queue) next(ctx context.Context) error {
	var id int64
	var payload []byte
	err := q.db.QueryRowContext(ctx, `UPDATE jobs SET locked_until = now() + interval '30 seconds'
		WHERE id = (SELECT id FROM jobs WHERE locked_until IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, payload`).Scan(&id, &payload)
	if err != nil {
		return err
	}
	return q.run(ctx, id, payload)
}
