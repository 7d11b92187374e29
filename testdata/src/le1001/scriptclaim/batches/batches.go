// Package batches: a Redis store that hands out batches of a shared group
// through Lua scripts run by one helper.
package batches

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Store keeps groups of pending items in sorted sets.
type Store struct{ rdb *redis.Client }

// run runs a script and hands back its integer answer.
func (s *Store) run(ctx context.Context, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return script.Run(ctx, s.rdb, keys, args...).Int64()
}

// runChecked runs a script and hands back its integer answer after
// checking its type: the answer is returned after a check of it.
func (s *Store) runChecked(ctx context.Context, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	res, err := script.Run(ctx, s.rdb, keys, args...).Result()
	if err != nil {
		return 0, err
	}
	n, ok := res.(int64)
	if !ok {
		return 0, errors.New("unexpected answer")
	}
	return n, nil
}

// moveCmd moves the oldest members of the group KEYS[1] into the batch
// KEYS[2] and removes them from the group, in one step.
var moveCmd = redis.NewScript(`
local ids = redis.call("ZRANGE", KEYS[1], 0, ARGV[1] - 1, "WITHSCORES")
if #ids == 0 then
	return 0
end
for i = 1, #ids, 2 do
	redis.call("ZADD", KEYS[2], ids[i + 1], ids[i])
end
redis.call("ZREMRANGEBYRANK", KEYS[1], 0, ARGV[1] - 1)
return 1
`)

// Claim moves a batch of the group into a set named for this call and
// returns its ID, "" when there was nothing to move.
func (s *Store) Claim(ctx context.Context, group string) (string, error) {
	id := uuid.NewString()
	n, err := s.run(ctx, moveCmd, []string{"group:" + group, "batch:" + id}, 100)
	if err != nil {
		return "", err
	}
	switch n {
	case 0:
		return "", nil
	case 1:
		return id, nil
	default:
		return "", errors.New("unexpected answer")
	}
}

// ClaimChecked is Claim through runChecked.
func (s *Store) ClaimChecked(ctx context.Context, group string) (string, error) {
	id := uuid.NewString()
	n, err := s.runChecked(ctx, moveCmd, []string{"group:" + group, "batch:" + id}, 100)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return id, nil
}

// ClaimShared moves the batch into one set every caller shares: each
// replica then reads all that was moved, its own and the others'.
func (s *Store) ClaimShared(ctx context.Context, group string) (string, error) {
	n, err := s.run(ctx, moveCmd, []string{"group:" + group, "batch:current"}, 100)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return "batch:current", nil
}

// copyCmd copies the members of the group into the batch but leaves them
// in the group.
var copyCmd = redis.NewScript(`
local ids = redis.call("ZRANGE", KEYS[1], 0, ARGV[1] - 1, "WITHSCORES")
if #ids == 0 then
	return 0
end
for i = 1, #ids, 2 do
	redis.call("ZADD", KEYS[2], ids[i + 1], ids[i])
end
return 1
`)

// Copy copies a batch of the group into a set named for this call and
// returns its ID, "" when the group is empty: nothing is taken out, so
// every caller copies the same members.
func (s *Store) Copy(ctx context.Context, group string) (string, error) {
	id := uuid.NewString()
	n, err := s.run(ctx, copyCmd, []string{"group:" + group, "batch:" + id}, 100)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return id, nil
}

// runTimed runs a script and hands back how long it took, not its answer.
func (s *Store) runTimed(ctx context.Context, script *redis.Script, keys []string, args ...interface{}) (time.Duration, error) {
	start := time.Now()
	err := script.Run(ctx, s.rdb, keys, args...).Err()
	return time.Since(start), err
}

// ClaimTimed moves a batch but decides on the run's duration, not on the
// script's answer: it returns an ID whether or not anything was moved.
func (s *Store) ClaimTimed(ctx context.Context, group string) (string, error) {
	id := uuid.NewString()
	took, err := s.runTimed(ctx, moveCmd, []string{"group:" + group, "batch:" + id}, 100)
	if err != nil {
		return "", err
	}
	if took == 0 {
		return "", nil
	}
	return id, nil
}

// ClaimBlind moves the batch but drops the script's answer: it returns an
// ID whether or not anything was moved.
func (s *Store) ClaimBlind(ctx context.Context, group string) (string, error) {
	id := uuid.NewString()
	if err := moveCmd.Run(ctx, s.rdb, []string{"group:" + group, "batch:" + id}, 100).Err(); err != nil {
		return "", err
	}
	return id, nil
}
