// Package scriptclaim: periodic work gated by Redis scripts that claim a
// batch of a shared collection, seen through an interface.
package scriptclaim

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"le1001/scriptclaim/batches"
)

type broker interface {
	Claim(ctx context.Context, group string) (string, error)
	ClaimChecked(ctx context.Context, group string) (string, error)
	ClaimShared(ctx context.Context, group string) (string, error)
	Copy(ctx context.Context, group string) (string, error)
	ClaimTimed(ctx context.Context, group string) (string, error)
	ClaimBlind(ctx context.Context, group string) (string, error)
}

var _ broker = (*batches.Store)(nil)

// Negative: each batch is moved out of the shared group by one script run;
// only the replica whose run moved it goes on (twins: below).
func aggregate(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		id, err := b.Claim(ctx, "mail")
		if err != nil {
			continue
		}
		if id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Negative: the same through a helper that checks the script's answer
// before it returns it.
func aggregateChecked(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		if id, err := b.ClaimChecked(ctx, "mail"); err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the claim's answer is ignored: every replica enqueues.
func aggregateIgnoring(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		b.Claim(ctx, "mail")
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Negative: the same claim called on the store itself.
func aggregateDirect(ctx context.Context, st *batches.Store, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		if id, err := st.Claim(ctx, "mail"); err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the store's claim called directly, its answer ignored: the
// store returning the batch ID only when the script moved one makes that
// ID the answer the caller must check.
func aggregateDirectIgnoring(ctx context.Context, st *batches.Store, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		st.Claim(ctx, "mail")
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the batch goes to a set every replica shares.
func aggregateShared(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		id, err := b.ClaimShared(ctx, "mail")
		if err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the script copies and takes nothing out: every replica gets
// the same members.
func aggregateCopying(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		id, err := b.Copy(ctx, "mail")
		if err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the store drops the script's answer.
func aggregateBlind(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		id, err := b.ClaimBlind(ctx, "mail")
		if err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the store's helper hands back the run's duration, not the
// script's answer.
func aggregateTimed(ctx context.Context, b broker, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		id, err := b.ClaimTimed(ctx, "mail")
		if err != nil || id == "" {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// popCmd takes one due job off the list: its answer is the job, or nil.
var popCmd = redis.NewScript(`
local job = redis.call('LPOP', KEYS[1])
if job then
	redis.call('HSET', KEYS[2], job, ARGV[1])
end
return job`)

// Negative: the job the script popped is this replica's alone (twin:
// popIgnoring).
func popDue(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		job, err := popCmd.Run(ctx, rdb, []string{"jobs:due", "jobs:running"}, time.Now().Unix()).Text()
		if err != nil {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", job)
	}
}

// Positive: the pop's answer is dropped and a fixed job is enqueued.
func popIgnoring(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends redis key jobs:queue`
		popCmd.Run(ctx, rdb, []string{"jobs:due", "jobs:running"}, time.Now().Unix())
		rdb.LPush(ctx, "jobs:queue", "sweep")
	}
}

// scripts keeps the sources by name.
var scripts = map[string]string{
	"move": `
local ids = redis.call("ZRANGE", KEYS[1], 0, 99)
for _, id in ipairs(ids) do redis.call("SADD", KEYS[2], id) end
redis.call("ZREMRANGEBYRANK", KEYS[1], 0, 99)
return #ids`,
	"count": `return redis.call("ZCARD", KEYS[1])`,
}

// Negative: a move from the map of scripts into a set named for this run.
func moveFromMap(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) {
		n, err := rdb.Eval(ctx, scripts["move"], []string{"group:mail", "batch:" + uuid.NewString()}).Int()
		if err != nil || n == 0 {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: the script from the map only counts (twin: moveFromMap); the
// source handed to Eval is not read by the effect classification, which
// counts it as a write of its first key.
func countFromMap(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it writes redis key group:mail, sends redis key jobs:queue`
		n, err := rdb.Eval(ctx, scripts["count"], []string{"group:mail", "batch:" + uuid.NewString()}).Int()
		if err != nil || n == 0 {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}

// Positive: a script the analysis cannot read is no claim (an unknown
// write of its first key, as before).
func unknownScript(ctx context.Context, rdb *redis.Client, src string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it writes redis key group:mail, sends redis key jobs:queue`
		n, err := rdb.Eval(ctx, src, []string{"group:mail", "batch:" + uuid.NewString()}).Int()
		if err != nil || n == 0 {
			continue
		}
		rdb.LPush(ctx, "jobs:queue", "digest")
	}
}
