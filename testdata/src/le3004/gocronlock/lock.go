// Package gocronlock is a scheduler locker built on redsync, as in
// go-co-op/gocron-redis-lock: the job runs between Lock and Unlock, and
// nothing extends the mutex.
package gocronlock

import (
	"context"
	"errors"

	"github.com/go-redsync/redsync/v4"
)

// Lock is what a scheduler asks a locker for: it can only be unlocked.
type Lock interface {
	Unlock(ctx context.Context) error
}

type redisLocker struct {
	rs      *redsync.Redsync
	options []redsync.Option
}

var errNotObtained = errors.New("failed to obtain lock")

// Lock hands the mutex to the scheduler, which runs the whole job under it.
func (r *redisLocker) Lock(ctx context.Context, key string) (Lock, error) {
	mu := r.rs.NewMutex(key, r.options...)
	if err := mu.LockContext(ctx); err != nil { // want `LockContext takes the lock key key with a fixed expiry \(8s by default, or whatever its options set\) and hands it to the caller as Lock, which offers no way to extend it`
		return nil, errNotObtained
	}
	rl := &redisLock{
		mu: mu,
	}
	return rl, nil
}

type redisLock struct {
	mu *redsync.Mutex
}

func (l *redisLock) Unlock(ctx context.Context) error {
	_, err := l.mu.UnlockContext(ctx)
	return err
}
