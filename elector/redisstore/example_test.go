package redisstore_test

import (
	"context"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/redisstore"
)

// A job that should run on one instance at a time, where a rare double run
// is harmless (Redis leases are efficiency-grade unless writes are fenced).
func Example() {
	ctx := context.Background()
	// MaxRetries -1: a retried script could act twice. ContextTimeoutEnabled:
	// a request on a stalled connection must end at its context's deadline.
	// redisstore.New refuses a client without both.
	client := redis.NewClient(&redis.Options{Addr: "redis:6379", MaxRetries: -1, ContextTimeoutEnabled: true})
	store, err := redisstore.New(client, redisstore.WithPrefix("myapp:lease:"))
	if err != nil {
		log.Fatal(err)
	}
	c, err := elector.New(store, "report-mailer")
	if err != nil {
		log.Fatal(err)
	}
	err = c.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		// Data in the same Redis can be fenced: the write happens only
		// while this term is live.
		key := "myapp:" + store.FenceTag(lease.Name()) + ":last-run"
		return store.SetFenced(ctx, lease.Term(), key, "now", 0)
	})
	log.Print(err)
}
