package le3004

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"
)

// cleanup takes SET NX with a TTL and then sleeps in a loop.
func cleanup(ctx context.Context, rdb *redis.Client, db *sql.DB, token string) {
	ok, err := rdb.SetNX(ctx, "lock:cleanup", token, 30*time.Second).Result() // want `SetNX takes the lock key "lock:cleanup" with a fixed TTL of 30s and holds it around work of unbounded duration \(a loop while`
	if err != nil || !ok {
		return
	}
	for n := int64(1); n > 0; {
		res, err := db.ExecContext(ctx, `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < now() - interval '30 days' LIMIT 1000)`)
		if err != nil {
			return
		}
		n, _ = res.RowsAffected()
	}
	rdb.Del(ctx, "lock:cleanup")
}

const unlockScript = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`

var unlock = redis.NewScript(unlockScript)

// rawPX: SET NX PX 5000 around a one-minute sleep.
func rawPX(ctx context.Context, rdb *redis.Client, token string, pause time.Duration) error {
	if err := rdb.Do(ctx, "SET", "lock:rollup", token, "NX", "PX", 5000).Err(); err != nil { // want `Do\("SET"\) takes the lock key "lock:rollup" with a fixed TTL of 5s and holds it around work of unbounded duration \(time\.Sleep\(pause\)`
		return err
	}
	defer unlock.Run(ctx, rdb, []string{"lock:rollup"}, token)
	time.Sleep(pause)
	return nil
}

// --- negatives ---

// careful: SET NX PX + a Lua compare-and-delete around one bounded call.
func careful(ctx context.Context, rdb *redis.Client, token string) error {
	ok, err := rdb.SetNX(ctx, "lock:digest", token, 30*time.Second).Result()
	if err != nil || !ok {
		return err
	}
	defer unlock.Run(ctx, rdb, []string{"lock:digest"}, token)
	return syncAccount(ctx, Account{})
}

var refresh = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end return 0`)

func keepAlive(ctx context.Context, rdb *redis.Client, key, token string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Second):
			refresh.Run(ctx, rdb, []string{key}, token, 30000)
		}
	}
}

// renewedByHelper renews through a package function.
func renewedByHelper(ctx context.Context, rdb *redis.Client, token string, accounts []Account) {
	if ok, _ := rdb.SetNX(ctx, "lock:sync", token, 30*time.Second).Result(); !ok {
		return
	}
	defer unlock.Run(ctx, rdb, []string{"lock:sync"}, token)
	go keepAlive(ctx, rdb, "lock:sync", token)
	for _, a := range accounts {
		syncAccount(ctx, a)
	}
}

// expireInLoop renews with PEXPIRE between items.
func expireInLoop(ctx context.Context, rdb *redis.Client, token string, accounts []Account) {
	if ok, _ := rdb.SetNX(ctx, "lock:sync", token, 30*time.Second).Result(); !ok {
		return
	}
	for _, a := range accounts {
		syncAccount(ctx, a)
		rdb.PExpire(ctx, "lock:sync", 30*time.Second)
	}
}

// inMemoryLoop: a loop of pure computation is not unbounded work.
func inMemoryLoop(ctx context.Context, rdb *redis.Client, token string, names []string) []string {
	if ok, _ := rdb.SetNX(ctx, "lock:names", token, 30*time.Second).Result(); !ok {
		return nil
	}
	var out []string
	for _, n := range names {
		out = append(out, "x:"+n)
	}
	return out
}

// hourlyDigest: a one-hour lock that is never released is a once-per-hour
// throttle, not a mutex around the work; not judged.
func hourlyDigest(ctx context.Context, rdb *redis.Client, users []Account) {
	if ok, _ := rdb.SetNX(ctx, "lock:digest:hourly", 1, time.Hour).Result(); !ok {
		return
	}
	for _, u := range users {
		syncAccount(ctx, u)
	}
}
