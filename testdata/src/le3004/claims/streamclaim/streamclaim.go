// Package streamclaim consumes a Redis stream in a consumer group and takes
// over entries other consumers left pending for longer than the configured
// idle time; nothing refreshes an entry while its handler runs.
package streamclaim

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

const defaultIdle = 45 * time.Second

type Options struct {
	Group   string
	Name    string
	MinIdle time.Duration
}

func (o *Options) fill() {
	if o.MinIdle == 0 {
		o.MinIdle = defaultIdle
	}
}

type Consumer struct {
	rdb     redis.UniversalClient
	opts    Options
	handle  func(ctx context.Context, m redis.XMessage) error
	batches chan []redis.XMessage
}

// pump reads new entries and hands them to the workers over a channel.
func (c *Consumer) pump(ctx context.Context, stream string) {
	for ctx.Err() == nil {
		res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{ // want `XReadGroup .*claims an item for a fixed 45s \(defaultIdle, the default of MinIdle\).*XAutoClaim.*line 52.*a send of the claimed item on batches`
			Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}, Count: 10,
		}).Result()
		if err != nil || len(res) == 0 {
			continue
		}
		c.batches <- res[0].Messages
	}
}

// reclaim takes over what other consumers left pending.
func (c *Consumer) reclaim(ctx context.Context, stream string) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for range t.C {
		msgs, _, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: stream, Group: c.opts.Group, Consumer: c.opts.Name, MinIdle: c.opts.MinIdle, Start: "0",
		}).Result()
		if err != nil {
			continue
		}
		c.batches <- msgs
	}
}

// once reads one entry and runs the handler on it directly.
func (c *Consumer) once(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{ // want `XReadGroup .*the callback handle called with it`
		Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}, Count: 1,
	}).Result()
	if err != nil {
		return err
	}
	for _, m := range res[0].Messages {
		if err := c.handle(ctx, m); err != nil {
			return err
		}
		c.rdb.XAck(ctx, stream, c.opts.Group, m.ID)
	}
	return nil
}

// bounded: the handler's context ends before the entry can be taken over.
func (c *Consumer) bounded(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}}).Result()
	if err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return c.handle(hctx, res[0].Messages[0])
}

// boundedTooLate: the twin of bounded, whose deadline is past the idle time.
func (c *Consumer) boundedTooLate(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}}).Result() // want `XReadGroup .*the callback handle called with it`
	if err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return c.handle(hctx, res[0].Messages[0])
}

// logsOnly: the entry is only logged and acked, no work runs on it.
func (c *Consumer) logsOnly(ctx context.Context, stream string, logf func(string, ...any)) {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}}).Result()
	if err != nil {
		logf("read: %v", err)
		return
	}
	if len(res) == 0 {
		return
	}
	c.rdb.XAck(ctx, stream, c.opts.Group, res[0].Messages[0].ID)
}

// noAck reads with NOACK: the entry is acknowledged on delivery and never
// pending, so the takeover cannot take it.
func (c *Consumer) noAck(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}, NoAck: true}).Result()
	if err != nil {
		return err
	}
	return c.handle(ctx, res[0].Messages[0])
}

// withAck: the twin of noAck that leaves the entry pending.
func (c *Consumer) withAck(ctx context.Context, stream string) error {
	res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: c.opts.Group, Consumer: c.opts.Name, Streams: []string{stream, ">"}, NoAck: false}).Result() // want `XReadGroup .*the callback handle called with it`
	if err != nil {
		return err
	}
	return c.handle(ctx, res[0].Messages[0])
}
