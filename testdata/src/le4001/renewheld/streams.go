package renewheld

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// A worker that reads tasks from a stream's consumer group and keeps the
// pending entry of the one it runs.
type taskStream struct {
	rdb    *redis.Client
	stream string
	group  string
	name   string // this worker's consumer name
	idle   time.Duration
}

func (q *taskStream) next(ctx context.Context) ([]redis.XStream, error) {
	return q.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: q.group, Consumer: q.name, Streams: []string{q.stream, ">"}, Count: 1}).Result()
}

// Positive: the heartbeat claims the entry back whoever holds it.
func (q *taskStream) extend(ctx context.Context, id string) error {
	_, err := q.rdb.XClaim(ctx, &redis.XClaimArgs{ // want `\(redis.cmdable\).XClaim with MinIdle 0 renews a pending entry by taking it for the consumer this package reads the group as \(XReadGroup at streams.go:21\), whoever holds it`
		Stream:   q.stream,
		Group:    q.group,
		Consumer: q.name,
		MinIdle:  0,
		Messages: []string{id},
	}).Result()
	if err != nil && err != redis.Nil {
		return err
	}
	return nil
}

// Positive: JUSTID, MinIdle left out (zero).
func (q *taskStream) touch(ctx context.Context, id string) error {
	return q.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: q.stream, Group: q.group, Consumer: q.name, Messages: []string{id}}).Err() // want `\(redis.cmdable\).XClaimJustID with MinIdle 0 renews a pending entry`
}

// Negative (twin: extend): a min-idle above zero takes over entries whose
// holder went quiet: a takeover, not a renewal.
func (q *taskStream) recoverIdle(ctx context.Context, ids []string) ([]redis.XMessage, error) {
	return q.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: q.stream, Group: q.group, Consumer: q.name, MinIdle: 2 * time.Minute, Messages: ids}).Result()
}

// Negative (twin: extend): a min-idle out of sight.
func (q *taskStream) recoverConfigured(ctx context.Context, ids []string) ([]redis.XMessage, error) {
	return q.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: q.stream, Group: q.group, Consumer: q.name, MinIdle: q.idle, Messages: ids}).Result()
}

// Negative (twin: extend): moving entries to another consumer (an
// operator's reassignment) renews nothing of this worker's.
func (q *taskStream) reassign(ctx context.Context, to string, ids []string) error {
	return q.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: q.stream, Group: q.group, Consumer: to, Messages: ids}).Err()
}

// refreshIfOwned renews the entry only while this consumer holds it.
var refreshIfOwned = redis.NewScript(`
local p = redis.call("XPENDING", KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
redis.call("XCLAIM", KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], "JUSTID")
return 1`)

// Negative: a script that checks the owner first (no XClaim call here).
func (q *taskStream) extendChecked(ctx context.Context, id string) (bool, error) {
	n, err := refreshIfOwned.Run(ctx, q.rdb, []string{q.stream}, q.group, q.name, id).Int()
	return n == 1, err
}
