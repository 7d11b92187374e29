// Package obtainlock hands a bsm/redislock lock to the caller behind a type
// that can only release it.
package obtainlock

import (
	"context"
	"time"

	"github.com/bsm/redislock"
)

// Releaser is all a caller gets back.
type Releaser interface {
	Release(ctx context.Context) error
}

type Locks struct {
	client *redislock.Client
}

// Acquire takes a 15 s lock the caller cannot refresh.
func (l *Locks) Acquire(ctx context.Context, name string) (Releaser, error) {
	lock, err := l.client.Obtain(ctx, "lock:"+name, 15*time.Second, nil) // want `Obtain takes the lock key "lock:" \+ name with a fixed TTL of 15s and hands it to the caller as Releaser, which offers no way to extend it`
	if err != nil {
		return nil, err
	}
	return lock, nil
}

// AcquireLock returns the lock itself: the caller can Refresh it.
func (l *Locks) AcquireLock(ctx context.Context, name string) (*redislock.Lock, error) {
	return l.client.Obtain(ctx, "lock:"+name, 15*time.Second, nil)
}
