package scriptclaim

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Negative: the popped job is handed on: it is this replica's alone
// (twin: popDropped).
func popHanded(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		job, err := rdb.LPop(ctx, "jobs:due").Result()
		if err != nil {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", job)
	}
}

// Positive: the pop's answer is dropped; a fixed job is enqueued anyway.
func popDropped(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		rdb.LPop(ctx, "jobs:due")
		rdb.LPush(ctx, "jobs:queue", "sweep")
	}
}

// Negative: the move answers redis.Nil when there was nothing to move, and
// that leaves (twin: moveErrOnly).
func moveNilChecked(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		_, err := rdb.RPopLPush(ctx, "jobs:due", "jobs:running").Result()
		if err == redis.Nil {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "sweep")
	}
}

// Positive: only a failure leaves, and what follows uses nothing the move
// answered.
func moveErrOnly(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		_, err := rdb.RPopLPush(ctx, "jobs:due", "jobs:running").Result()
		if err != nil {
			return
		}
		rdb.LPush(ctx, "jobs:queue", "sweep")
	}
}

// Negative: a raw LPOP whose job is handed on (twin: rangeHanded).
func doPopHanded(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		job, err := rdb.Do(ctx, "LPOP", "jobs:due").Text()
		if err != nil {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", job)
	}
}

// Positive: a raw LRANGE reads without taking: every replica hands on the
// same job.
func rangeHanded(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		job, err := rdb.Do(ctx, "LRANGE", "jobs:due", 0, 0).Text()
		if err != nil {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", job)
	}
}
