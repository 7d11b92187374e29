// Package streamlaterefresh is the twin of streamrenewed and
// streamrenewedkeyed: its ticker goroutine claims with a MinIdle of 5 s, but
// the IDs it claims are those XPendingExt lists, not the entry being
// handled: a takeover of entries idle 5 s, which takes the handled one too.
package streamlaterefresh

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
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.group, Consumer: c.name, Streams: []string{stream, ">"}, Count: 1}).Result() // want `XReadGroup .*claims an item for a fixed 5s \(the MinIdle 5 \* time.Second\): c.rdb.XClaimJustID of entries idle longer than that \(line 44\)`
	if err != nil {
		return err
	}
	m := res[0].Messages[0]
	done := make(chan struct{})
	defer close(done)
	go c.sweep(ctx, stream, done)
	return c.handle(ctx, m)
}

// sweep claims entries pending for 5 s.
func (c *Consumer) sweep(ctx context.Context, stream string, done <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			pending, _ := c.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: c.group, Start: "-", End: "+", Count: 10}).Result()
			for _, p := range pending {
				c.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 5 * time.Second, Messages: []string{p.ID}})
			}
		}
	}
}

func (c *Consumer) reclaim(ctx context.Context, stream string) ([]redis.XMessage, error) {
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: 30 * time.Second, Start: "0"}).Result()
	return msgs, err
}
