// Package streamrenewedkeyed refreshes the entry the way streamrenewed does,
// with a MinIdle of 5 s instead of 0: the goroutine claims the entry being
// handled by its own ID every 10 s, which resets its idle time all the same.
package streamrenewedkeyed

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Consumer struct {
	rdb    *redis.Client
	group  string
	name   string
	handle func(ctx context.Context, m redis.XMessage) error
}

func (c *Consumer) once(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.group, Consumer: c.name, Streams: []string{stream, ">"}, Count: 1}).Result()
	if err != nil {
		return err
	}
	m := res[0].Messages[0]
	done := make(chan struct{})
	defer close(done)
	go c.keepPending(ctx, stream, m.ID, done)
	return c.handle(ctx, m)
}

// keepPending refreshes the entry's idle time every 10 s.
func (c *Consumer) keepPending(ctx context.Context, stream, id string, done <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			c.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 5 * time.Second, Messages: []string{id}})
		}
	}
}

func (c *Consumer) reclaim(ctx context.Context, stream string) ([]redis.XMessage, error) {
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 30 * time.Second, Start: "0"}).Result()
	return msgs, err
}
