package le3004

import (
	"context"
	"time"

	"github.com/go-redsync/redsync/v4"
)

// extended keeps the mutex alive from a goroutine while the loop runs.
func extended(ctx context.Context, rs *redsync.Redsync, accounts []Account) error {
	mu := rs.NewMutex("lock:sync-accounts", redsync.WithExpiry(10*time.Second))
	if err := mu.LockContext(ctx); err != nil {
		return err
	}
	defer mu.UnlockContext(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(3 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if ok, err := mu.ExtendContext(ctx); err != nil || !ok {
					cancel()
					return
				}
			}
		}
	}()
	for _, a := range accounts {
		if err := syncAccount(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// bounded: three attempts of one call are not unbounded work.
func bounded(ctx context.Context, rs *redsync.Redsync) error {
	mu := rs.NewMutex("lock:ping")
	if err := mu.Lock(); err != nil {
		return err
	}
	defer mu.Unlock()
	for i := 0; i < 3; i++ {
		if syncAccount(ctx, Account{}) == nil {
			break
		}
	}
	return nil
}

// handedOver: the caller gets the mutex itself and can extend it.
func handedOver(ctx context.Context, rs *redsync.Redsync, name string) (*redsync.Mutex, error) {
	mu := rs.NewMutex(name)
	if err := mu.LockContext(ctx); err != nil {
		return nil, err
	}
	return mu, nil
}

// supervised passes the mutex to code the analysis cannot see.
func supervised(ctx context.Context, rs *redsync.Redsync, fn func()) error {
	mu := rs.NewMutex("lock:x")
	if err := mu.Lock(); err != nil {
		return err
	}
	defer mu.Unlock()
	stop := keepExtending(mu)
	defer stop()
	fn()
	return nil
}

var keepExtending func(*redsync.Mutex) func()

// Syncer keeps its mutex in a field and extends it from a keep-alive
// goroutine started by Start.
type Syncer struct {
	mu *redsync.Mutex
}

func (s *Syncer) Start(ctx context.Context) {
	go s.keepAlive(ctx)
}

func (s *Syncer) keepAlive(ctx context.Context) {
	for range time.Tick(2 * time.Second) {
		s.mu.ExtendContext(ctx)
	}
}

func (s *Syncer) SyncAll(ctx context.Context, accounts []Account) error {
	if err := s.mu.LockContext(ctx); err != nil {
		return err
	}
	defer s.mu.UnlockContext(ctx)
	for _, a := range accounts {
		syncAccount(ctx, a)
	}
	return nil
}
