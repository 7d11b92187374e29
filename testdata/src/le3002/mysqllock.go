package le3002

import (
	"context"
	"database/sql"
)

// MySQL named locks belong to the session that took them.

// Positive: GET_LOCK and RELEASE_LOCK through the *sql.DB pool.
func mysqlGCOnPool(ctx context.Context, db *sql.DB) error {
	var got int
	if err := db.QueryRowContext(ctx, `SELECT GET_LOCK(?, 1)`, "gc_run").Scan(&got); err != nil || got != 1 { // want `QueryRowContext takes the session-level get_lock through a connection pool \(sql\.DB\)`
		return err
	}
	defer db.ExecContext(ctx, `SELECT RELEASE_LOCK(?)`, "gc_run") // want `ExecContext runs the session-level release_lock through a connection pool \(sql\.DB\)`
	return runBilling(ctx)
}

// Negative (twin of mysqlGCOnPool): the lock, the work and the release on
// one pinned connection.
func mysqlGCOnConn(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var got int
	if err := conn.QueryRowContext(ctx, `SELECT GET_LOCK(?, 1)`, "gc_run").Scan(&got); err != nil || got != 1 {
		return err
	}
	defer conn.ExecContext(ctx, `SELECT RELEASE_LOCK(?)`, "gc_run")
	return runBilling(ctx)
}

// Negative: a column named like the function is not a call.
func mysqlLockColumn(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `UPDATE jobs SET get_lock_count = 0`)
	return err
}
