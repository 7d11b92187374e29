// Package renewheld: renewals of an item this worker claimed, whose answer
// is the only news that another worker has taken the item over.
package renewheld

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

var errLost = errors.New("the task lease was lost")

type store struct {
	db     *sql.DB
	worker string
	ttl    time.Duration
}

// Positive: keyed by the holder, the count never read: a lease another
// worker took matches nothing and the renewal still returns nil.
func (s *store) extendDropped(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ? AND worker = ?`, time.Now().Add(s.ttl), id, s.worker) // want `\(sql.Tx\).ExecContext renews a row of table jobs only while its worker column names this holder, and its affected-row count \(RowsAffected\) is never read`
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Negative (twin: extendDropped): the count is read and zero rows is an
// error the caller sees.
func (s *store) extendCounted(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ? AND worker = ?`, time.Now().Add(s.ttl), id, s.worker)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errLost
	}
	return nil
}

// Negative (twin: extendReturningDropped): the renewed row is scanned, and
// sql.ErrNoRows reaches the caller when none was.
func (s *store) extendReturning(ctx context.Context, id int64) (time.Time, error) {
	var until time.Time
	err := s.db.QueryRowContext(ctx, `UPDATE jobs SET lease_expires_at = now() + $1 * interval '1 second' WHERE job_id = $2 AND locked_by = $3 RETURNING lease_expires_at`,
		int64(s.ttl/time.Second), id, s.worker).Scan(&until)
	return until, err
}

// Positive: the same RETURNING statement run by Exec, its answer dropped.
func (s *store) extendReturningDropped(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET lease_expires_at = now() + $1 * interval '1 second' WHERE job_id = $2 AND locked_by = $3 RETURNING lease_expires_at`, // want `\(sql.DB\).ExecContext renews a row of table jobs only while its locked_by column names this holder, and the rows it returns is never read`
		int64(s.ttl/time.Second), id, s.worker)
	return err
}

// Negative (twin: extendDropped): no holder in the WHERE clause: zero rows
// cannot mean another worker holds it, so this is not the shape.
func (s *store) extendAnyHolder(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ?`, time.Now().Add(s.ttl), id)
	return err
}

// Negative (twin: extendDropped): keyed by the holder, but no expiry moves:
// no renewal.
func (s *store) countAttempt(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET attempts = ? WHERE job_id = ? AND worker = ?`, 3, id, s.worker)
	return err
}

// Negative: the statement comes from the caller; out of sight.
func (s *store) run(ctx context.Context, q string, args ...any) error {
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

// exec hands the statement on and returns its answer.
func (s *store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, q, args...)
}

// Positive: through a helper that returns the answer, which is dropped.
func (s *store) extendViaHelper(ctx context.Context, id int64) error {
	_, err := s.exec(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ? AND worker = ?`, time.Now().Add(s.ttl), id, s.worker) // want `\(renewheld.store\).exec renews a row of table jobs only while its worker column names this holder`
	return err
}

// Negative (twin: extendViaHelper): the helper's answer is checked.
func (s *store) extendViaHelperCounted(ctx context.Context, id int64) error {
	res, err := s.exec(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ? AND worker = ?`, time.Now().Add(s.ttl), id, s.worker)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errLost
	}
	return nil
}

// Negative: the helper returns only an error; whether it reads the count
// is its own business (unknown).
func (s *store) extendViaRun(ctx context.Context, id int64) error {
	return s.run(ctx, `UPDATE jobs SET locked_until = ? WHERE job_id = ? AND worker = ?`, time.Now().Add(s.ttl), id, s.worker)
}
