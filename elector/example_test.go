package elector_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// reconcile stands for the job every replica used to run on its own ticker.
// It takes the fencing token so its writes can be refused once a newer
// leader exists (see ExampleFenceSQL).
func reconcile(ctx context.Context, token uint64) {
	fmt.Println("reconcile, fenced with token", token)
}

// Remediating a ticker loop that every replica runs:
//
//	for range time.Tick(time.Minute) {
//		reconcile(ctx)
//	}
//
// becomes a loop that only the leader runs, that stops as soon as leadership
// may be lost, and that passes the fencing token with its writes.
func Example_tickerLoop() {
	store := memstore.New() // in production: a pgstore, etcdstore or redisstore
	c, err := elector.New(store, "reconciler",
		elector.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background()) // signal.NotifyContext in a service
	ticks := 0
	err = c.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		t := time.NewTicker(10 * time.Millisecond) // time.Minute in the service
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil // leadership ended (or shutdown): stop within the stop budget
			case <-t.C:
				reconcile(ctx, lease.Token())
				if ticks++; ticks == 3 {
					stop() // end the example
				}
			}
		}
	})
	fmt.Println("run ended:", errors.Is(err, context.Canceled))
	// Output:
	// reconcile, fenced with token 1
	// reconcile, fenced with token 1
	// reconcile, fenced with token 1
	// run ended: true
}

func ExampleTiming_Explain() {
	fmt.Print(elector.DefaultTiming().Explain())
	// Output:
	// timing: lease 15s, renew every 5s, retry 2s, drift bound 500ms, stop budget 1s
	// leader context lives 13.5s after each successful renew was sent (lease - drift - stop budget)
	// renew attempts before the deadline: 4
	// tolerated clock rate error vs the store: 3.33%
	// worst-case crash failover: 17.4s (lease + jittered retry; plus the store's ttl rounding)
	// worst-case graceful handover: 1s with a watching store, 3.4s polling (plus store round trips)
}
