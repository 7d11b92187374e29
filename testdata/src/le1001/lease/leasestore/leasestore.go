// Package leasestore keeps leases in a table of the project's own: a lease
// is renewed by the holder that names itself in the key of the UPDATE.
package leasestore

import (
	"context"
	"database/sql"
	"time"
)

// Renew moves the holder's lease on: the row is keyed by the lock and by
// the holder, so only the holder's own row changes. holder is a parameter
// whose name says nothing; its callers decide what it is.
func Renew(ctx context.Context, db *sql.DB, lock, holder string, d time.Duration) error {
	_, err := db.ExecContext(ctx, `UPDATE leases SET expires_at = now() + $1::interval, renewals = renewals + 1 WHERE lock_id = $2 AND locked_by = $3`,
		d.String(), lock, holder)
	return err
}

// Touch is Renew reached through another helper: the key is handed on
// through two parameters.
func Touch(ctx context.Context, db *sql.DB, lock, holder string) error {
	return Renew(ctx, db, lock, holder, 30*time.Second)
}

// Bump counts a renewal of the lock whoever holds it: no parameter of its
// reaches the key of a write but the lock.
func Bump(ctx context.Context, db *sql.DB, lock, note string) error {
	_, err := db.ExecContext(ctx, `UPDATE leases SET renewals = renewals + 1 WHERE lock_id = $1`, lock)
	return err
}

// Store is the same renewal behind a type of the store's own.
type Store struct{ DB *sql.DB }

// Renew is the package function as a method.
func (s *Store) Renew(ctx context.Context, lock, holder string) error {
	return Renew(ctx, s.DB, lock, holder, 30*time.Second)
}

// Stamp counts a renewal of the lock and records who made it: the holder
// is in the SET list, not in the WHERE; the row is the lock's, whoever
// holds it.
func Stamp(ctx context.Context, db *sql.DB, lock, holder string) error {
	_, err := db.ExecContext(ctx, `UPDATE leases SET renewals = renewals + 1, last_by = $1 WHERE lock_id = $2`, holder, lock)
	return err
}
