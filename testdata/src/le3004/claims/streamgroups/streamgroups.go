// Package streamgroups reads in two consumer groups but takes over pending
// entries of one of them only: the other group's entries are never taken
// over, whatever its handler takes.
package streamgroups

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Consumer struct {
	rdb    *redis.Client
	name   string
	handle func(ctx context.Context, m redis.XMessage) error
}

func (c *Consumer) mail(ctx context.Context) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "mailer", Consumer: c.name, Streams: []string{"events", ">"}}).Result()
	if err != nil {
		return err
	}
	return c.handle(ctx, res[0].Messages[0])
}

func (c *Consumer) bill(ctx context.Context) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: c.name, Streams: []string{"events", ">"}}).Result() // want `XReadGroup .*claims an item for a fixed 1m0s`
	if err != nil {
		return err
	}
	return c.handle(ctx, res[0].Messages[0])
}

func (c *Consumer) reclaimBilling(ctx context.Context) ([]redis.XMessage, error) {
	msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "events", Group: "billing", Consumer: c.name, MinIdle: time.Minute, Start: "0"}).Result()
	return msgs, err
}
