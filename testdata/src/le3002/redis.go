// Package le3002 holds LE3002 (unsafeunlock) fixtures: releases that do not
// check ownership, and session locks taken through a pool.
package le3002

import (
	"context"
	"errors"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"
)

var errBusy = errors.New("another instance holds the lock")

func runBilling(ctx context.Context) error { return nil }

// billing is the textbook mistake: a TTL'd lock released with a plain DEL.
func billing(ctx context.Context, rdb *redis.Client, token string) error {
	ok, err := rdb.SetNX(ctx, "lock:billing", token, time.Minute).Result()
	if err != nil || !ok {
		return errBusy
	}
	defer rdb.Del(ctx, "lock:billing") // want `Del deletes the lock key "lock:billing" without checking that this replica still holds it`
	return runBilling(ctx)
}

// RedisLocker is a gocron-style locker: Lock and Unlock are separate methods.
type RedisLocker struct {
	rdb redis.UniversalClient
	id  string
}

func (l *RedisLocker) Lock(ctx context.Context, key string) (bool, error) {
	return l.rdb.SetNX(ctx, "locks:"+key, l.id, 30*time.Second).Result()
}

func (l *RedisLocker) Unlock(ctx context.Context, key string) error {
	return l.rdb.Unlink(ctx, "locks:"+key).Err() // want `Unlink deletes the lock key "locks:" \+ key without checking`
}

// rawRelease uses raw commands for both.
func rawRelease(ctx context.Context, rdb redis.UniversalClient, token string) error {
	if err := rdb.Do(ctx, "SET", "lock:reindex", token, "NX", "PX", 60000).Err(); err != nil {
		return err
	}
	reindex(ctx)
	return rdb.Do(ctx, "DEL", "lock:reindex").Err() // want `Do\("DEL"\) deletes the lock key "lock:reindex" without checking`
}

func reindex(ctx context.Context) {}

// getThenDel checks the owner in a separate round trip: not atomic.
func getThenDel(ctx context.Context, rdb *redis.Client, token string) error {
	if ok, _ := rdb.SetNX(ctx, "lock:export", token, time.Minute).Result(); !ok {
		return errBusy
	}
	runBilling(ctx)
	if v, _ := rdb.Get(ctx, "lock:export").Result(); v == token {
		return rdb.Del(ctx, "lock:export").Err() // want `Del deletes the lock key "lock:export" after checking ownership with a separate Get \(line \d+\): the check and the delete are not atomic`
	}
	return nil
}

// --- negatives ---

const releaseScript = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`

var release = redis.NewScript(releaseScript)

// compareAndDelete is the fix.
func compareAndDelete(ctx context.Context, rdb *redis.Client, token string) error {
	ok, err := rdb.SetNX(ctx, "lock:digest", token, time.Minute).Result()
	if err != nil || !ok {
		return errBusy
	}
	defer release.Run(ctx, rdb, []string{"lock:digest"}, token)
	defer rdb.Eval(ctx, releaseScript, []string{"lock:digest"}, token)
	return runBilling(ctx)
}

// watchDel releases inside a WATCH transaction.
func watchDel(ctx context.Context, rdb *redis.Client, token string) error {
	if ok, _ := rdb.SetNX(ctx, "lock:gc", token, time.Minute).Result(); !ok {
		return errBusy
	}
	return rdb.Watch(ctx, func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, "lock:gc")
			return nil
		})
		return err
	}, "lock:gc")
}

// cacheDel deletes a key that is not a lock.
func cacheDel(ctx context.Context, rdb *redis.Client) error {
	return rdb.Del(ctx, "cache:home", "cache:about").Err()
}

// redislockRelease: the library checks the token.
func redislockRelease(ctx context.Context, rdb *redis.Client) error {
	locker := redislock.New(rdb)
	lock, err := locker.Obtain(ctx, "lock:mail", 30*time.Second, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	return runBilling(ctx)
}

// redsyncUnlock: the library checks the value.
func redsyncUnlock(ctx context.Context, rs *redsync.Redsync) error {
	mu := rs.NewMutex("lock:mail")
	if err := mu.LockContext(ctx); err != nil {
		return err
	}
	defer mu.UnlockContext(ctx)
	return runBilling(ctx)
}

// Redis is a thin client wrapper: Del of a key another method SETNXes is
// not a lock release.
type Redis struct {
	rdb *redis.Client
}

func (s *Redis) SetnxEx(ctx context.Context, key, value string, seconds int) (bool, error) {
	return s.rdb.SetNX(ctx, key, value, time.Duration(seconds)*time.Second).Result()
}

func (s *Redis) Del(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, key).Err()
}

// nightly ignores whether the Redis locker took the lock.
func nightly(ctx context.Context, l *RedisLocker, fn func()) {
	l.Lock(ctx, "nightly")
	defer l.Unlock(ctx, "nightly") // want `l\.Unlock\("nightly"\) runs whether or not l\.Lock\("nightly"\) took the lock`
	fn()
}
