// Package streamrenewed is streamclaim's consumer with an extender: while
// the handler runs, a goroutine claims the entry back to this consumer with
// MinIdle 0, which resets its idle time, so the takeover never sees it idle.
package streamrenewed

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
			c.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 0, Messages: []string{id}})
		}
	}
}

func (c *Consumer) reclaim(ctx context.Context, stream string) ([]redis.XMessage, error) {
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 30 * time.Second, Start: "0"}).Result()
	return msgs, err
}
