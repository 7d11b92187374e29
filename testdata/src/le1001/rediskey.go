package le1001

import (
	"context"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

type beater struct {
	rdb  *redis.Client
	name string
}

func newBeater(rdb *redis.Client) *beater {
	h, _ := os.Hostname()
	return &beater{rdb: rdb, name: h}
}

// Negative: the counter's key ends in this instance's host name.
func (b *beater) count(ctx context.Context) {
	for range time.Tick(time.Minute) {
		b.rdb.Incr(ctx, "beats:"+b.name)
	}
}

type sharedBeater struct {
	rdb  *redis.Client
	name string
}

func newSharedBeater(rdb *redis.Client) *sharedBeater {
	return &sharedBeater{rdb: rdb, name: "all"}
}

// Positive twin: the key ends in a constant, one counter for every replica.
func (b *sharedBeater) count(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it increments redis key beats:\*; guarded by nothing`
		b.rdb.Incr(ctx, "beats:"+b.name)
	}
}
