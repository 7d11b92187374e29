// Package streamunknownidle takes over pending entries with a min-idle the
// caller may set to anything (30 s unless WithIdle says otherwise): the
// expiry cannot be read, so nothing is judged (the twin whose field is only
// ever set to constants is streamclaim).
package streamunknownidle

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Consumer struct {
	rdb    redis.UniversalClient
	group  string
	name   string
	idle   time.Duration
	handle func(ctx context.Context, m redis.XMessage) error
}

func New(rdb redis.UniversalClient) *Consumer {
	return &Consumer{rdb: rdb, idle: 30 * time.Second}
}

func (c *Consumer) WithIdle(d time.Duration) *Consumer {
	c.idle = d
	return c
}

func (c *Consumer) once(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.group, Consumer: c.name, Streams: []string{stream, ">"}, Count: 1}).Result()
	if err != nil {
		return err
	}
	return c.handle(ctx, res[0].Messages[0])
}

func (c *Consumer) reclaim(ctx context.Context, stream string) ([]redis.XMessage, error) {
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: c.group, Consumer: c.name, MinIdle: c.idle, Start: "0"}).Result()
	return msgs, err
}
