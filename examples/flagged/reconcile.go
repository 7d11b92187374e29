package main

import (
	"context"
	"database/sql"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// reconcile takes a Redis lock around a reconciliation pass.
func reconcile(ctx context.Context, rdb *redis.Client, db *sql.DB) {
	host, _ := os.Hostname()
	for range time.Tick(time.Minute) { // LE1001: a lock without expiry coordinates nothing
		ok, err := rdb.SetNX(ctx, "lock:reconcile", host, 0).Result() // LE3001
		if err != nil || !ok {
			continue
		}
		db.ExecContext(ctx, `UPDATE ledger SET balanced = true WHERE day = current_date - 1`)
		rdb.Del(ctx, "lock:reconcile") // LE3002
	}
}
