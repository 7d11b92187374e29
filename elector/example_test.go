package elector_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/prommetrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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

// A service wires the candidate into its process: shutdown on SIGTERM
// releases the lease, probes and metrics are served, and events are logged.
func Example_service() {
	store := memstore.New() // pgstore / etcdstore / redisstore in production
	c, err := elector.New(store, "nightly-export", elector.WithLogger(slog.Default()))
	if err != nil {
		slog.Error("elector", "error", err)
		os.Exit(1)
	}
	if err := prommetrics.Register(prometheus.DefaultRegisterer, c); err != nil {
		slog.Error("elector metrics", "error", err)
		os.Exit(1)
	}
	slog.Info("elector timing", "model", c.Timing().String())

	mux := http.NewServeMux()
	mux.Handle("/healthz", c.HealthHandler())  // liveness: Run still competing
	mux.Handle("/leader", c.LeaderHandler())   // 200 only on the leader
	mux.Handle("/metrics", promhttp.Handler()) // elector_is_leader, elector_token, ...
	go func() { _ = http.ListenAndServe("localhost:8080", mux) }()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_ = c.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		// export, passing lease.Token() with every write
		<-ctx.Done()
		return nil
	})
}

// Observing who leads, without competing, e.g. for a status page.
func ExampleCandidate_Observe() {
	store := memstore.New()
	observer, err := elector.New(store, "reconciler") // a candidate that never calls Run
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := store.Acquire(ctx, "reconciler", "host-a", time.Minute); err != nil {
		fmt.Println(err)
		return
	}
	_ = observer.Observe(ctx, func(r elector.Record) {
		fmt.Printf("leader %s, token %d, held %v\n", r.Holder, r.Token, r.Held)
	})
	// Output:
	// leader host-a, token 1, held true
}
