// Package le3004 holds LE3004 (lockrenewal) fixtures: fixed-TTL locks held
// around work of unbounded duration without renewal.
package le3004

import (
	"context"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

type Account struct{ ID int64 }

func syncAccount(ctx context.Context, a Account) error { return nil }

// syncAll holds a default 8 s redsync mutex over a loop of network work.
func syncAll(ctx context.Context, rdb *redis.Client, accounts []Account) error {
	rs := redsync.New(goredis.NewPool(rdb))
	mu := rs.NewMutex("lock:sync-accounts")
	if err := mu.LockContext(ctx); err != nil { // want `LockContext takes the lock key "lock:sync-accounts" with a fixed default expiry of 8s and holds it around work of unbounded duration \(a loop over accounts calling syncAccount, line \d+\) without ever extending it`
		return err
	}
	defer mu.UnlockContext(ctx)
	for _, a := range accounts {
		if err := syncAccount(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// Locker runs callbacks under a named lock.
type Locker struct {
	rs *redsync.Redsync
}

// WithLock holds a 30 s mutex around a callback whose duration it cannot know.
func (l *Locker) WithLock(ctx context.Context, name string, fn func(context.Context) error) error {
	mu := l.rs.NewMutex("locks:"+name, redsync.WithExpiry(30*time.Second), redsync.WithTries(1))
	if err := mu.TryLockContext(ctx); err != nil { // want `TryLockContext takes the lock key "locks:" \+ name with a fixed expiry of 30s \(WithExpiry\) and holds it around work of unbounded duration \(the callback fn`
		return err
	}
	defer mu.UnlockContext(ctx)
	return fn(ctx)
}

// Job is a scheduled job.
type Job interface {
	Run(ctx context.Context) error
}

func (l *Locker) RunJob(ctx context.Context, name string, j Job) error {
	mu := l.rs.NewMutex(name)
	if err := mu.Lock(); err != nil { // want `Lock takes the lock key name with a fixed default expiry of 8s and holds it around work of unbounded duration \(the job j\.Run`
		return err
	}
	err := j.Run(ctx)
	mu.Unlock()
	return err
}

// Reindexer keeps its mutex in a field and never extends it.
type Reindexer struct {
	mu *redsync.Mutex
}

func (r *Reindexer) Run(ctx context.Context, ids <-chan int64) error {
	if err := r.mu.LockContext(ctx); err != nil { // want `LockContext takes the lock r\.mu with a fixed expiry \(set when the mutex was built\) and holds it around work of unbounded duration \(a loop receiving from ids`
		return err
	}
	defer r.mu.UnlockContext(ctx)
	for id := range ids {
		syncAccount(ctx, Account{ID: id})
	}
	return nil
}
