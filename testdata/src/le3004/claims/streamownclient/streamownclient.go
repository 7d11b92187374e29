// Package streamownclient has methods named like Redis Streams commands on
// its own client type, talking to a store the knowledge base does not know:
// no report.
package streamownclient

import (
	"context"
	"time"
)

type Entry struct {
	ID   string
	Body []byte
}

type Log struct{}

func (l *Log) XReadGroup(ctx context.Context, group, consumer string) ([]Entry, error) {
	return nil, nil
}
func (l *Log) XAutoClaim(ctx context.Context, group string, minIdle time.Duration) ([]Entry, error) {
	return nil, nil
}

type Consumer struct {
	log    *Log
	handle func(ctx context.Context, e Entry) error
}

func (c *Consumer) once(ctx context.Context) error {
	es, err := c.log.XReadGroup(ctx, "g", "c")
	if err != nil || len(es) == 0 {
		return err
	}
	return c.handle(ctx, es[0])
}

func (c *Consumer) reclaim(ctx context.Context) ([]Entry, error) {
	return c.log.XAutoClaim(ctx, "g", 30*time.Second)
}
