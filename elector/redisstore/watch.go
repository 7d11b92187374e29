package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// watchCheck is how long a watch waits in silence before it pings its
// connection, so that a connection into a black hole closes the channel
// (and the standby polls) instead of waiting for wakeups that cannot come.
var watchCheck = 10 * time.Second

// Watch implements elector.Watcher with a pub/sub subscription to the
// lease's channel; Acquire and Release publish on it. An expiry publishes
// nothing (Redis keyspace notifications are off by default and are
// fire-and-forget too); candidates poll for that.
//
// go-redis would silently resubscribe after a broken connection, losing
// the messages in between; this watch closes its channel at the first
// error instead, as elector.Watcher asks, so the caller knows to poll.
func (s *Store) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	ps := s.c.Subscribe(ctx, s.Channel(name))
	// Wait for the confirmation: a change after Watch returns is seen.
	if _, err := ps.ReceiveTimeout(ctx, watchCheck); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redisstore: watch %q: %w", name, err)
	}
	ch := make(chan struct{}, 1)
	stop := context.AfterFunc(ctx, func() { ps.Close() })
	go func() {
		defer close(ch)
		defer stop()
		defer ps.Close()
		pinged := false
		for {
			msg, err := ps.ReceiveTimeout(ctx, watchCheck)
			var ne net.Error
			switch {
			case err == nil:
			case errors.As(err, &ne) && ne.Timeout() && !pinged && ctx.Err() == nil:
				// Quiet for a while: ask for a PONG within another period.
				if ps.Ping(ctx) != nil {
					return
				}
				pinged = true
				continue
			default:
				return
			}
			pinged = false
			if _, ok := msg.(*redis.Message); !ok {
				continue // a Pong or a subscription confirmation
			}
			select {
			case ch <- struct{}{}:
			default: // a wakeup is already pending; one is enough
			}
		}
	}()
	return ch, nil
}
