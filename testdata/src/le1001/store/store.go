// Package store is a repository layer: its methods' effects reach the jobs
// that call them through facts.
package store

import (
	"context"
	"database/sql"
)

type Store struct{ db *sql.DB }

// ChargeDue bills every account whose invoice is due.
func (s *Store) ChargeDue(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO charges (account_id, amount)
		SELECT id, balance FROM accounts WHERE due_at < now()`)
	return err
}

// PurgeExpired deletes what has expired: idempotent.
func (s *Store) PurgeExpired(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < now()`)
	return err
}

// ClaimBatch claims rows so replicas split the work.
func (s *Store) ClaimBatch(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM outbox ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED`)
	if err != nil {
		return err
	}
	defer rows.Close()
	_, err = s.db.ExecContext(ctx, `UPDATE outbox SET sent = true WHERE id = ANY($1)`)
	return err
}

// Counts only reads.
func (s *Store) Counts(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM accounts`).Scan(&n)
	return n, err
}
