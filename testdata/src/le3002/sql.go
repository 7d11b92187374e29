package le3002

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const jobLockID = 4242

// advisoryOnPool takes a session lock through *sql.DB.
func advisoryOnPool(ctx context.Context, db *sql.DB) error {
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, jobLockID).Scan(&ok); err != nil || !ok { // want `QueryRowContext takes the session-level pg_try_advisory_lock through a connection pool \(sql\.DB\)`
		return err
	}
	defer db.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, jobLockID) // want `ExecContext runs the session-level pg_advisory_unlock through a connection pool \(sql\.DB\)`
	return runBilling(ctx)
}

// advisoryOnPgxPool does the same with pgxpool.
func advisoryOnPgxPool(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, "select pg_advisory_lock(42)"); err != nil { // want `Exec takes the session-level pg_advisory_lock through a connection pool \(pgxpool\.Pool\)`
		return err
	}
	defer pool.Exec(ctx, "select pg_advisory_unlock(42)") // want `pg_advisory_unlock through a connection pool`
	return runBilling(ctx)
}

// releaseByName deletes the lock row whoever holds it.
func releaseByName(ctx context.Context, db *sql.DB, name string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM distributed_locks WHERE name = $1`, name) // want `ExecContext releases a lock row of table distributed_locks by name only, with no owner or token predicate`
	return err
}

func clearHolder(ctx context.Context, tx pgx.Tx, name string) error {
	_, err := tx.Exec(ctx, `UPDATE job_lock SET locked_by = NULL WHERE job_name = $1`, name) // want `releases a lock row of table job_lock by name only`
	return err
}

// --- negatives ---

// pinnedConn keeps one connection for lock, work and unlock.
func pinnedConn(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var ok bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, jobLockID).Scan(&ok); err != nil || !ok {
		return err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, jobLockID)
	return runBilling(ctx)
}

// pgxConn: an acquired pgxpool.Conn is pinned too.
func pgxConn(ctx context.Context, pool *pgxpool.Pool) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	if _, err := c.Exec(ctx, "select pg_advisory_lock(42)"); err != nil {
		return err
	}
	defer c.Exec(ctx, "select pg_advisory_unlock(42)")
	return runBilling(ctx)
}

// xactLock: transaction-scoped, released by COMMIT/ROLLBACK.
func xactLock(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock($1)`, jobLockID).Scan(&ok); err != nil || !ok {
		return err
	}
	if err := runBilling(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// xactOnPool: even through the pool, an xact lock in an autocommit
// statement is released at once; not a session lock.
func xactOnPool(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, "select pg_try_advisory_xact_lock(42)")
	return err
}

func releaseOwned(ctx context.Context, db *sql.DB, name, me string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM distributed_locks WHERE name = $1 AND owner = $2`, name, me)
	return err
}

func purgeExpired(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `DELETE FROM distributed_locks WHERE name = $1 AND expires_at < now()`, "x")
	return err
}

func deleteBlock(ctx context.Context, db *sql.DB, name string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM blocks WHERE name = $1`, name)
	return err
}
