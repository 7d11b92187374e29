package le3004

import (
	"context"
	"net/http"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
)

type Event struct{ URL string }

// forward holds a 10 s redislock while draining a channel.
func forward(ctx context.Context, locker *redislock.Client, events <-chan Event) error {
	lock, err := locker.Obtain(ctx, "lock:forwarder", 10*time.Second, nil) // want `Obtain takes the lock key "lock:forwarder" with a fixed TTL of 10s and holds it around work of unbounded duration \(a loop receiving from events`
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	for ev := range events {
		http.Post(ev.URL, "application/json", nil)
	}
	return nil
}

// refreshed is bsm/redislock used as documented: Refresh in a loop.
func refreshed(ctx context.Context, rdb *redis.Client, events <-chan Event) error {
	locker := redislock.New(rdb)
	lock, err := locker.Obtain(ctx, "lock:forwarder", 10*time.Second, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	t := time.NewTicker(3 * time.Second)
	defer t.Stop()
	for {
		select {
		case ev := <-events:
			http.Post(ev.URL, "application/json", nil)
		case <-t.C:
			if err := lock.Refresh(ctx, 10*time.Second, nil); err != nil {
				return err
			}
		}
	}
}

// short work under a long TTL.
func short(ctx context.Context, rdb *redis.Client) error {
	lock, err := redislock.Obtain(ctx, rdb, "lock:report", time.Minute, nil)
	if err != nil {
		return err
	}
	defer lock.Release(ctx)
	time.Sleep(time.Second)
	return syncAccount(ctx, Account{})
}
