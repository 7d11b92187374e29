package renewloop

import (
	"context"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
)

const refreshIfOwner = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`

// A lock of the project's own: SET NX with a TTL, refreshed while the job
// runs.
type redisLock struct {
	rdb   *redis.Client
	key   string
	token string
	ttl   time.Duration
	stop  chan struct{}
}

func (l *redisLock) acquire(ctx context.Context) bool {
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	return err == nil && ok
}

// The refresher only logs a failed or refused PEXPIRE: the lock expires and
// another replica takes it while the job goes on.
func (l *redisLock) runWithRefresh(ctx context.Context, job func(context.Context)) {
	if !l.acquire(ctx) {
		return
	}
	go func() {
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				ok, err := l.rdb.PExpire(ctx, l.key, l.ttl).Result() // want `\(redis.cmdable\).PExpire renews the Redis lock key l.key, taken by SetNX at redis.go:\d+, and its failure is only logged`
				if err != nil {
					log.Printf("refresh %s: %v", l.key, err)
					continue
				}
				if !ok {
					log.Printf("refresh %s: key gone", l.key)
				}
			}
		}
	}()
	job(ctx)
}

// The compare-and-refresh script, its answer dropped: reported too.
func (l *redisLock) runWithScript(ctx context.Context, job func(context.Context)) {
	if !l.acquire(ctx) {
		return
	}
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			l.rdb.Eval(ctx, refreshIfOwner, []string{l.key}, l.token, l.ttl.Milliseconds()) // want `\(redis.cmdable\).Eval renews the Redis lock key l.key.*its result is discarded`
		}
	}()
	job(ctx)
}

// The refresher cancels the job's context when the lock is lost: silent.
func (l *redisLock) runWithRefreshCancel(ctx context.Context, job func(context.Context)) {
	if !l.acquire(ctx) {
		return
	}
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			ok, err := l.rdb.PExpire(jobCtx, l.key, l.ttl).Result()
			if err != nil || !ok {
				log.Printf("lock %s lost", l.key)
				cancel()
				return
			}
		}
	}()
	job(jobCtx)
}

// PEXPIRE of a key nothing here acquires (a cache entry): no lock, silent.
func (l *redisLock) keepCacheWarm(ctx context.Context) {
	go func() {
		for {
			time.Sleep(time.Minute)
			if err := l.rdb.PExpire(ctx, "cache:"+l.token, time.Hour).Err(); err != nil {
				log.Printf("cache: %v", err)
			}
		}
	}()
}

// The same PEXPIRE of the lock key, its error read through Err(), only
// logged: reported (the twin of keepCacheWarm).
func (l *redisLock) runWithRefreshErr(ctx context.Context, job func(context.Context)) {
	if !l.acquire(ctx) {
		return
	}
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := l.rdb.PExpire(ctx, l.key, l.ttl).Err(); err != nil { // want `\(redis.cmdable\).PExpire renews the Redis lock key l.key.*its failure is only logged`
				log.Printf("refresh %s: %v", l.key, err)
			}
		}
	}()
	job(ctx)
}
