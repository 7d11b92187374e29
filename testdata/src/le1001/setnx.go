package le1001

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"
)

// Negative: SET NX with a TTL whose answer gates the report.
func lockedReport(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	for range time.Tick(time.Hour) {
		if ok, _ := rdb.SetNX(ctx, "lock:report", "me", time.Minute).Result(); !ok {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO reports (at) VALUES (now())`)
	}
}

// Positive twin: the answer is dropped.
func lockedReportUnchecked(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table reports; guarded by nothing`
		rdb.SetNX(ctx, "lock:report", "me", time.Minute)
		db.ExecContext(ctx, `INSERT INTO reports (at) VALUES (now())`)
	}
}

// tryReportLock returns SET NX's answer to its caller.
func tryReportLock(ctx context.Context, rdb *redis.Client) (bool, error) {
	return rdb.SetNX(ctx, "lock:report", "me", time.Minute).Result()
}

// Negative: the helper's answer gates the report.
func lockedReportViaHelper(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	for range time.Tick(time.Hour) {
		if ok, err := tryReportLock(ctx, rdb); err != nil || !ok {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO reports (at) VALUES (now())`)
	}
}

// Positive twin: only the helper's error is checked.
func lockedReportViaHelperErrOnly(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table reports; guarded by nothing`
		if _, err := tryReportLock(ctx, rdb); err != nil {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO reports (at) VALUES (now())`)
	}
}
