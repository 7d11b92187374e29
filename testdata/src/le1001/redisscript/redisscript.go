// Package redisscript: periodic work through go-redis Lua scripts.
package redisscript

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// requeue pushes due retries back to the queue: each replica's run pushes
// them again.
var requeue = redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(ids) do redis.call('RPUSH', KEYS[2], id) end
return #ids`)

// Positive: a script handle whose source pushes.
func retries(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:retry`
		requeue.Run(ctx, rdb, []string{"jobs:retry", "jobs:queue"}, time.Now().Unix())
	}
}

// Positive: Eval of a constant source that increments.
func counts(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it increments redis key stats:ticks`
		rdb.Eval(ctx, `return redis.call('INCR', KEYS[1])`, []string{"stats:ticks"})
	}
}

// Negative: the script only reads (twin: retries).
var due = redis.NewScript(`return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])`)

func peek(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		due.Run(ctx, rdb, []string{"jobs:retry"}, time.Now().Unix())
	}
}

// Negative: the script claims the batch with SET NX before it pushes
// (twin: retries).
var claimRequeue = redis.NewScript(`
if redis.call('SET', KEYS[3], ARGV[2], 'NX', 'PX', 30000) then
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
  for _, id in ipairs(ids) do redis.call('RPUSH', KEYS[2], id) end
end`)

func claimed(ctx context.Context, rdb *redis.Client, me string) {
	for range time.Tick(time.Minute) {
		claimRequeue.Run(ctx, rdb, []string{"jobs:retry", "jobs:queue", "jobs:requeue-claim"}, time.Now().Unix(), me)
	}
}
