// Package le3003 holds LE3003 (unfencedwrite) fixtures: writes made under
// a lock without a fencing token.
package le3003

import (
	"context"
	"database/sql"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"
)

type Entry struct {
	Account string
	Amount  int64
}

// settle writes the ledger under a redislock without a fencing token.
func settle(ctx context.Context, locker *redislock.Client, db *sql.DB, entries []Entry) error {
	lock, err := locker.Obtain(ctx, "lock:ledger", 30*time.Second, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	for _, e := range entries {
		if _, err := db.ExecContext(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2`, e.Amount, e.Account); err != nil { // want `db\.ExecContext writes to shared state \(SQL UPDATE on accounts\) under the lock key "lock:ledger" \(line \d+\) without a fencing token`
			return err
		}
	}
	return nil
}

// publish pushes to a shared Redis list under a redsync mutex.
func publish(ctx context.Context, rs *redsync.Redsync, rdb *redis.Client, msg string) error {
	mu := rs.NewMutex("lock:publisher")
	if err := mu.LockContext(ctx); err != nil {
		return err
	}
	defer mu.UnlockContext(ctx)
	return rdb.RPush(ctx, "outbox", msg).Err() // want `rdb\.RPush writes to shared state \(send\) under the lock`
}

// --- negatives ---

// fencedSettle passes the lock's token and the store checks it.
func fencedSettle(ctx context.Context, locker *redislock.Client, db *sql.DB, e Entry, fencingToken int64) error {
	lock, err := locker.Obtain(ctx, "lock:ledger", 30*time.Second, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	_, err = db.ExecContext(ctx, `UPDATE accounts SET balance = balance + $1, fence = $3 WHERE id = $2 AND fence < $3`, e.Amount, e.Account, fencingToken)
	return err
}

// ownerChecked writes with an ownership condition.
func ownerChecked(ctx context.Context, rdb *redis.Client, db *sql.DB, me string) error {
	ok, err := rdb.SetNX(ctx, "lock:reports", me, time.Minute).Result()
	if err != nil || !ok {
		return err
	}
	_, err = db.ExecContext(ctx, `INSERT INTO reports (day) SELECT current_date WHERE EXISTS (SELECT 1 FROM report_owner WHERE owner = $1)`, me)
	return err
}

// afterRelease: the write happens after the lock is released.
func afterRelease(ctx context.Context, rs *redsync.Redsync, rdb *redis.Client) error {
	mu := rs.NewMutex("lock:stats")
	if err := mu.Lock(); err != nil {
		return err
	}
	mu.Unlock()
	return rdb.Incr(ctx, "stats:runs").Err()
}

// readsOnly: reads are not writes.
func readsOnly(ctx context.Context, locker *redislock.Client, db *sql.DB) error {
	lock, err := locker.Obtain(ctx, "lock:audit", 30*time.Second, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	_, err = db.QueryContext(ctx, `SELECT id FROM accounts`)
	return err
}
