// Package ownlock: locks a project writes itself, from rows inserted and
// deleted over an ORM builder or SQL text built at run time.
package ownlock

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// --- an ORM lock: the model's primary key makes the insert fail when the
// row exists ---

type jobLock struct {
	bun.BaseModel `bun:"table:job_locks"`
	LockID        string `bun:"lock_id,pk"`
}

type BunLocker struct{ db *bun.DB }

func (l *BunLocker) TryLock(ctx context.Context, id string) bool {
	_, err := l.db.NewInsert().Model(&jobLock{LockID: id}).Exec(ctx) // want `Exec takes the lock in \(BunLocker\).TryLock by inserting a row of model jobLock, and \(BunLocker\).Unlock releases it by deleting the row: nothing gives the row an expiry`
	return err == nil
}

func (l *BunLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.NewDelete().Model((*jobLock)(nil)).Where("lock_id = ?", id).Exec(ctx)
	return err
}

// Negative: the model has an expiry column (twin: BunLocker).
type leaseRow struct {
	bun.BaseModel `bun:"table:job_leases"`
	LockID        string    `bun:"lock_id,pk"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

type ExpiringLocker struct{ db *bun.DB }

func (l *ExpiringLocker) TryLock(ctx context.Context, id string) bool {
	_, err := l.db.NewInsert().Model(&leaseRow{LockID: id, ExpiresAt: time.Now().Add(time.Minute)}).Exec(ctx)
	return err == nil
}

func (l *ExpiringLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.NewDelete().Model((*leaseRow)(nil)).Where("lock_id = ?", id).Exec(ctx)
	return err
}

// Negative: no primary or unique key, so the insert never fails and takes
// nothing (twin: BunLocker).
type note struct {
	bun.BaseModel `bun:"table:notes"`
	Text          string `bun:"text"`
}

type NoteLocker struct{ db *bun.DB }

func (l *NoteLocker) Lock(ctx context.Context, text string) error {
	_, err := l.db.NewInsert().Model(&note{Text: text}).Exec(ctx)
	return err
}

func (l *NoteLocker) Unlock(ctx context.Context, text string) error {
	_, err := l.db.NewDelete().Model((*note)(nil)).Where("text = ?", text).Exec(ctx)
	return err
}

// Negative: names that do not say lock (twin: BunLocker).
type Archive struct{ db *bun.DB }

func (a *Archive) Save(ctx context.Context, id string) error {
	_, err := a.db.NewInsert().Model(&jobLock{LockID: id}).Exec(ctx)
	return err
}

func (a *Archive) Remove(ctx context.Context, id string) error {
	_, err := a.db.NewDelete().Model((*jobLock)(nil)).Where("lock_id = ?", id).Exec(ctx)
	return err
}

// --- a SQL lock whose table name is configured, inserted inside a
// transaction helper ---

type Config struct{ LockTable string }

type SQLLocker struct {
	db  *sql.DB
	cfg Config
}

func (l *SQLLocker) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (l *SQLLocker) Lock(ctx context.Context, id string) error {
	return l.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO "+l.cfg.LockTable+" (lock_id) VALUES ($1)", id) // want `ExecContext takes the lock in \(SQLLocker\).Lock by inserting a row of table l.cfg.LockTable`
		return err
	})
}

func (l *SQLLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.cfg.LockTable+" WHERE lock_id = $1", id)
	return err
}

// Negative: the insert stores an expiry (twin: SQLLocker).
type StampedLocker struct {
	db  *sql.DB
	cfg Config
}

func (l *StampedLocker) Lock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.cfg.LockTable+" (lock_id, expires_at) VALUES ($1, now() + interval '1 minute')", id)
	return err
}

func (l *StampedLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.cfg.LockTable+" WHERE lock_id = $1", id)
	return err
}

// Negative: the insert has no expiry, but a renewal sets one (twin:
// SQLLocker).
type RenewedLocker struct {
	db    *sql.DB
	table string
}

func (l *RenewedLocker) Lock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id) VALUES ($1)", id)
	return err
}

func (l *RenewedLocker) Refresh(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "UPDATE "+l.table+" SET locked_until = now() + interval '1 minute' WHERE lock_id = $1", id)
	return err
}

func (l *RenewedLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table+" WHERE lock_id = $1", id)
	return err
}

// Negative: two parts of the statement are not constant, so the text is
// unknown (twin: SQLLocker).
type ColumnsLocker struct {
	db           *sql.DB
	table, extra string
}

func (l *ColumnsLocker) Lock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id"+l.extra+") VALUES ($1)", id)
	return err
}

func (l *ColumnsLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table+" WHERE lock_id = $1", id)
	return err
}

// --- package-level functions, the statement built with fmt.Sprintf into a
// local variable ---

func AcquireLock(ctx context.Context, db *sql.DB, table, name string) error {
	q := fmt.Sprintf("INSERT INTO %s (name) VALUES ($1)", table)
	_, err := db.ExecContext(ctx, q, name) // want `ExecContext takes the lock in AcquireLock by inserting a row of table table`
	return err
}

func ReleaseLock(ctx context.Context, db *sql.DB, table, name string) error {
	_, err := db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE name = $1", table), name)
	return err
}

// Negative: an upsert takes the row whoever holds it: not an
// insert-if-absent (twin: AcquireLock).
type UpsertLocker struct{ db *sql.DB }

func (l *UpsertLocker) Acquire(ctx context.Context, table, name string) error {
	q := fmt.Sprintf("INSERT INTO %s (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = excluded.name", table)
	_, err := l.db.ExecContext(ctx, q, name)
	return err
}

func (l *UpsertLocker) Release(ctx context.Context, table, name string) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE name = $1", table), name)
	return err
}

// Negative: acquire and release both append a row to a ledger; nothing
// deletes a row, so the rows are a record, not a lock (twin: AcquireLock).
type Ledger struct{ db *sql.DB }

func (l *Ledger) AcquireCredit(ctx context.Context, table, name string) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (name) VALUES ($1)", table), name)
	return err
}

func (l *Ledger) ReleaseCredit(ctx context.Context, table, name string) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (name) VALUES ($1)", table), name)
	return err
}

// Negative: the table's definition has a time column a reader can judge
// staleness by (twin: SQLLocker, whose package shows no such column for
// its table).
type MigratedLocker struct {
	db    *sql.DB
	table string
}

func (l *MigratedLocker) migrate(ctx context.Context) error {
	_, err := l.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+l.table+" (lock_id text PRIMARY KEY, locked_at timestamptz NOT NULL DEFAULT now())")
	return err
}

func (l *MigratedLocker) Lock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id) VALUES ($1)", id)
	return err
}

func (l *MigratedLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table+" WHERE lock_id = $1", id)
	return err
}
