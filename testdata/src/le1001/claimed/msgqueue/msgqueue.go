// Package msgqueue is a queue kept in a table: Receive claims a message
// with a compare-and-set and returns it; Extend moves the visibility
// timeout of a message on, keyed by its ID.
package msgqueue

import (
	"context"
	"database/sql"
	"time"
)

type Queue struct{ db *sql.DB }

type Message struct {
	ID   string
	Body []byte
}

// Receive claims one ready message: the UPDATE takes it only while it is
// ready, and the claimed row is the answer.
func (q *Queue) Receive(ctx context.Context) (Message, error) {
	var id string
	var body []byte
	err := q.db.QueryRowContext(ctx, `UPDATE messages SET status = 'taken', visible_at = now() + interval '30 seconds' WHERE status = 'ready' RETURNING id, body`).Scan(&id, &body)
	if err != nil {
		return Message{}, err
	}
	return Message{ID: id, Body: body}, nil
}

// Peek reads the next ready message without taking it.
func (q *Queue) Peek(ctx context.Context) (Message, error) {
	var id string
	var body []byte
	err := q.db.QueryRowContext(ctx, `SELECT id, body FROM messages WHERE status = 'ready' LIMIT 1`).Scan(&id, &body)
	if err != nil {
		return Message{}, err
	}
	return Message{ID: id, Body: body}, nil
}

// Extend pushes the message's visibility timeout on by d.
func (q *Queue) Extend(ctx context.Context, id string, d time.Duration) error {
	_, err := q.db.ExecContext(ctx, `UPDATE messages SET visible_at = visible_at + $1::interval, extensions = extensions + 1 WHERE id = $2`, d.String(), id)
	return err
}
