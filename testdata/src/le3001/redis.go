// Package le3001 holds LE3001 (lockexpiry) fixtures: locks and leases taken
// without expiry, or with the expiry set by a separate call.
package le3001

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

var errLocked = errors.New("locked by another instance")

// billingJob takes the classic lock without a TTL.
func billingJob(ctx context.Context, rdb *redis.Client) error {
	host, _ := os.Hostname()
	ok, err := rdb.SetNX(ctx, "lock:billing", host, 0).Result() // want `SetNX takes the lock key "lock:billing" with no expiry \(TTL 0 means no expiry\).*no replica ever runs the guarded work again`
	if err != nil || !ok {
		return errLocked
	}
	defer rdb.Del(ctx, "lock:billing")
	return chargeAll(ctx)
}

func chargeAll(ctx context.Context) error { return nil }

type Locker struct {
	rdb    redis.UniversalClient
	prefix string
	owner  string
}

// TryLock keeps the TTL of a key that does not exist yet: none.
func (l *Locker) TryLock(ctx context.Context, name string) (bool, error) {
	key := l.prefix + name
	return l.rdb.SetNX(ctx, key, l.owner, redis.KeepTTL).Result() // want `SetNX takes the lock key key with no expiry \(KeepTTL`
}

// Acquire uses SET NX through SetArgs without a TTL.
func (l *Locker) Acquire(ctx context.Context, name string) error {
	err := l.rdb.SetArgs(ctx, "locks:"+name, l.owner, redis.SetArgs{Mode: "NX"}).Err() // want `SetArgs takes the lock key "locks:" \+ name with no expiry \(SetArgs with Mode NX and neither TTL nor ExpireAt\)`
	if errors.Is(err, redis.Nil) {
		return errLocked
	}
	return err
}

// AcquireRaw sends SET NX by hand and forgets PX.
func (l *Locker) AcquireRaw(ctx context.Context, name string) (bool, error) {
	res, err := l.rdb.Do(ctx, "SET", "locks:"+name, l.owner, "NX").Result() // want `Do\("SET"\) takes the lock key "locks:" \+ name with no expiry \(NX without EX or PX\)`
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return res == "OK", err
}

// lockThenExpire sets the TTL in a second round trip.
func lockThenExpire(ctx context.Context, rdb *redis.Client, job string) bool {
	key := fmt.Sprintf("cron:%s:lock", job)
	ok, err := rdb.SetNX(ctx, key, 1, 0).Result() // want `SetNX takes the lock key key with no expiry and sets one only afterwards with a separate Expire \(line \d+\): the expiry is not atomic`
	if err != nil || !ok {
		return false
	}
	rdb.Expire(ctx, key, 5*time.Minute)
	return true
}

// rawSetNXExpire is the same with raw commands.
func rawSetNXExpire(ctx context.Context, rdb redis.UniversalClient) bool {
	n, _ := rdb.Do(ctx, "SETNX", "reports:lock", "1").Int() // want `Do\("SETNX"\) takes the lock key "reports:lock" with no expiry and sets one only afterwards with a separate Do\("EXPIRE"\)`
	if n != 1 {
		return false
	}
	rdb.Do(ctx, "EXPIRE", "reports:lock", 60)
	return true
}

// TimestampLock is the old "value is the expiry time" recipe: a stale lock
// is taken over with GETSET, which drops the key's TTL.
type TimestampLock struct {
	rdb redis.UniversalClient
}

func (r TimestampLock) Lock(key string, expireAt int64) error {
	ctx := context.Background()
	now := time.Now().UnixNano()
	ttl := time.Duration(expireAt - now)
	ok, err := r.rdb.SetNX(ctx, key, expireAt, ttl).Result()
	if err != nil || ok {
		return err
	}
	v, err := r.rdb.Get(ctx, key).Result()
	if err != nil {
		return err
	}
	old, _ := strconv.ParseInt(v, 10, 64)
	if now > old {
		prev, err := r.rdb.GetSet(ctx, key, expireAt).Result() // want `GetSet takes over the lock key key and drops its TTL; the expiry is set again only by a separate Expire \(line \d+\)`
		if err != nil {
			return err
		}
		if p, _ := strconv.ParseInt(prev, 10, 64); now > p {
			r.rdb.Expire(ctx, key, ttl)
			return nil
		}
	}
	return errLocked
}

// --- negatives ---

// goodLock passes the TTL in the acquire.
func goodLock(ctx context.Context, rdb *redis.Client, token string) (bool, error) {
	return rdb.SetNX(ctx, "lock:digest", token, 30*time.Second).Result()
}

// configuredTTL: a TTL that is not a constant is not evidence.
func configuredTTL(ctx context.Context, rdb *redis.Client, token string, ttl time.Duration) (bool, error) {
	return rdb.SetNX(ctx, "lock:digest", token, ttl).Result()
}

// setArgsTTL: SET NX PX through SetArgs.
func setArgsTTL(ctx context.Context, rdb *redis.Client, token string) error {
	return rdb.SetArgs(ctx, "lock:export", token, redis.SetArgs{Mode: "NX", TTL: 10 * time.Second}).Err()
}

// rawPX: SET key token NX PX 30000.
func rawPX(ctx context.Context, rdb *redis.Client, token string) error {
	return rdb.Do(ctx, "SET", "lock:export", token, "NX", "PX", 30000).Err()
}

// renewLater: a TTL in the acquire and Expire later is a renewal.
func renewLater(ctx context.Context, rdb *redis.Client, token string) {
	if ok, _ := rdb.SetNX(ctx, "lock:sync", token, 15*time.Second).Result(); !ok {
		return
	}
	for i := 0; i < 3; i++ {
		step(ctx)
		rdb.Expire(ctx, "lock:sync", 15*time.Second)
	}
}

func step(ctx context.Context) {}

// counterGetSet: GETSET on a key that is no lock.
func counterGetSet(ctx context.Context, rdb *redis.Client) (string, error) {
	return rdb.GetSet(ctx, "stats:last-run", time.Now().Unix()).Result()
}

// cacheSet: a plain SET without NX is a cache, not a lock.
func cacheSet(ctx context.Context, rdb *redis.Client, v string) error {
	return rdb.Set(ctx, "cache:home", v, 0).Err()
}

// xxNoTTL: SET XX updates an existing key; it takes nothing.
func xxNoTTL(ctx context.Context, rdb *redis.Client, v string) error {
	return rdb.SetArgs(ctx, "profile:1", v, redis.SetArgs{Mode: "XX"}).Err()
}

// spread: the arguments are not visible.
func spread(ctx context.Context, rdb *redis.Client, args []interface{}) error {
	return rdb.Do(ctx, args...).Err()
}

// Redis is a thin client wrapper (as in go-zero): SETNX exposed as a command
// is not a lock, whatever its TTL.
type Redis struct {
	rdb *redis.Client
}

func (s *Redis) SetnxCtx(ctx context.Context, key, value string) (bool, error) {
	return s.rdb.SetNX(ctx, key, value, 0).Result()
}

func (s *Redis) GetSetCtx(ctx context.Context, key, value string) (string, error) {
	return s.rdb.GetSet(ctx, key, value).Result()
}

// markProcessed is a permanent dedup marker, not a lock.
func markProcessed(ctx context.Context, rdb *redis.Client, id string) (bool, error) {
	return rdb.SetNX(ctx, "processed:"+id, 1, 0).Result()
}
