// Package streamnotakeover reads in a consumer group but never claims
// pending entries (no XCLAIM, no XAUTOCLAIM): an entry stays with its
// consumer however long the handler runs, so there is no expiry to outlast.
package streamnotakeover

import (
	"context"

	"github.com/redis/go-redis/v9"
)

type Consumer struct {
	rdb    redis.UniversalClient
	group  string
	name   string
	handle func(ctx context.Context, m redis.XMessage) error
}

func (c *Consumer) once(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.group, Consumer: c.name, Streams: []string{stream, ">"}, Count: 1}).Result()
	if err != nil {
		return err
	}
	for _, m := range res[0].Messages {
		if err := c.handle(ctx, m); err != nil {
			return err
		}
		c.rdb.XAck(ctx, stream, c.group, m.ID)
	}
	return nil
}

// pending only reports how many entries wait.
func (c *Consumer) pending(ctx context.Context, stream string) int {
	p, _ := c.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: c.group, Start: "-", End: "+", Count: 100}).Result()
	return len(p)
}
