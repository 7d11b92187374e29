// Package rowlock: locks a project builds from a row, a document or a key of
// its own store, whose statements only value flow shows (a statement
// variable assigned twice, a table name through a quoting helper).
package rowlock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

var errLocked = errors.New("locked")

type Settings struct {
	Table string
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// SchemaLocker checks for the row, then inserts it: the insert's primary
// key is the lock, and Unlock deletes it by key. Nothing ever expires it.
type SchemaLocker struct {
	db  *sql.DB
	cfg *Settings
}

func (s *SchemaLocker) Lock(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	query := "SELECT lock_id FROM " + quoteName(s.cfg.Table) + " WHERE lock_id = $1"
	rows, err := tx.QueryContext(ctx, query, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return errLocked
	}
	query = "INSERT INTO " + quoteName(s.cfg.Table) + " (lock_id) VALUES ($1)"
	if _, err := tx.ExecContext(ctx, query, id); err != nil { // want `ExecContext takes the lock in \(SchemaLocker\).Lock by inserting a row of table rowlock.quoteName\(Settings.Table\) \(INSERT INTO "rowlock.quoteName\(Settings.Table\)" \(lock_id\) VALUES \(\$1\)\), and \(SchemaLocker\).Unlock releases it by deleting the row: nothing gives the row an expiry`
		return err
	}
	return tx.Commit()
}

func (s *SchemaLocker) Unlock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + quoteName(s.cfg.Table) + " WHERE lock_id = $1"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

// SprintfLocker: the same with fmt.Sprintf and the statement assigned in
// two branches.
type SprintfLocker struct {
	db    *sql.DB
	table string
}

func (s *SprintfLocker) TryLock(ctx context.Context, name string, quiet bool) error {
	var q string
	if quiet {
		q = fmt.Sprintf("INSERT INTO %s (name) VALUES ($1) ON CONFLICT DO NOTHING", s.table)
	} else {
		q = fmt.Sprintf("INSERT INTO %s (name) VALUES ($1) ON CONFLICT DO NOTHING", s.table)
	}
	_, err := s.db.ExecContext(ctx, q, name) // want `ExecContext takes the lock in \(SprintfLocker\).TryLock by inserting a row of table SprintfLocker.table`
	return err
}

func (s *SprintfLocker) Unlock(ctx context.Context, name string) error {
	q := fmt.Sprintf("DELETE FROM %s WHERE name = $1", s.table)
	q = q + " AND name IS NOT NULL"
	_, err := s.db.ExecContext(ctx, q, name)
	return err
}

// Negative: the acquire first deletes rows whose time has passed, so a
// crashed holder's row is taken over (twin: SchemaLocker).
type SweepingLocker struct {
	db  *sql.DB
	cfg *Settings
}

func (s *SweepingLocker) Lock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + quoteName(s.cfg.Table) + " WHERE locked_at < now() - interval '10 minutes'"
	if _, err := s.db.ExecContext(ctx, query); err != nil {
		return err
	}
	query = "INSERT INTO " + quoteName(s.cfg.Table) + " (lock_id) VALUES ($1)"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

func (s *SweepingLocker) Unlock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + quoteName(s.cfg.Table) + " WHERE lock_id = $1"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

// Negative: the acquire takes over a row whose expiry passed, in the same
// statement (twin: SchemaLocker).
type TakeoverLocker struct {
	db  *sql.DB
	cfg *Settings
}

func (s *TakeoverLocker) Lock(ctx context.Context, id int64) error {
	query := "SELECT 1"
	query = "INSERT INTO " + quoteName(s.cfg.Table) + " (lock_id, expires_at) VALUES ($1, now() + interval '1 minute') " +
		"ON CONFLICT (lock_id) DO UPDATE SET expires_at = excluded.expires_at WHERE expires_at < now()"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

func (s *TakeoverLocker) Unlock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + quoteName(s.cfg.Table) + " WHERE lock_id = $1"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

// Negative: the insert stores an expiry from the TTL it is given (twin:
// SchemaLocker).
type TTLRowLocker struct {
	db  *sql.DB
	cfg *Settings
}

func (s *TTLRowLocker) Lock(ctx context.Context, id int64, ttl time.Duration) error {
	query := "SELECT 1"
	query = "INSERT INTO " + quoteName(s.cfg.Table) + " (lock_id, locked_until) VALUES ($1, $2)"
	_, err := s.db.ExecContext(ctx, query, id, time.Now().Add(ttl))
	return err
}

func (s *TTLRowLocker) Unlock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + quoteName(s.cfg.Table) + " WHERE lock_id = $1"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

// Negative: the table part of insert and delete come from different
// fields, so nothing shows they are one table (twin: SchemaLocker).
type TwoTables struct {
	db          *sql.DB
	locks, done string
}

func (s *TwoTables) Lock(ctx context.Context, id int64) error {
	query := "SELECT 1"
	query = "INSERT INTO " + s.locks + " (lock_id) VALUES ($1)"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

func (s *TwoTables) Unlock(ctx context.Context, id int64) error {
	query := "DELETE FROM " + s.done + " WHERE lock_id = $1"
	_, err := s.db.ExecContext(ctx, query, id)
	return err
}

// Negative: a session advisory lock ends with its session (twin:
// SchemaLocker, same methods, a row instead).
type AdvisoryLocker struct {
	conn *sql.Conn
	cfg  *Settings
}

func (s *AdvisoryLocker) Lock(ctx context.Context, id int64) error {
	query := "SELECT 1"
	query = "SELECT pg_advisory_lock($1)"
	_, err := s.conn.ExecContext(ctx, query, id)
	return err
}

func (s *AdvisoryLocker) Unlock(ctx context.Context, id int64) error {
	query := "SELECT pg_advisory_unlock($1)"
	_, err := s.conn.ExecContext(ctx, query, id)
	return err
}
