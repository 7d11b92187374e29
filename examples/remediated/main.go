// Command remediated is the flagged example done right: one elector lease
// per job family, the work bound to the leader's context, every write fenced
// with the lease's token. gatesift-vet reports nothing here.
//
//	go run ./cmd/gatesift-vet ./examples/remediated/
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/pgstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	store, err := pgstore.New(pool)
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	billing, err := elector.New(store, "billing")
	if err != nil {
		log.Fatal(err)
	}
	// Run competes until ctx ends; the work runs only while this replica
	// holds the lease, and its ctx ends before anyone else can lead. Its
	// error is ctx's, plus the work's last failure if it had one.
	err = billing.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		return runBilling(ctx, pool, lease)
	})
	log.Printf("billing stopped: %v", err)
}

// runBilling is the leader's work: every job of the family, on one
// schedule, under one lease.
func runBilling(ctx context.Context, pool *pgxpool.Pool, lease elector.Lease) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := chargeDue(ctx, pool, lease.Token()); err != nil {
				log.Print(err)
			}
		}
	}
}

// chargeDue is fenced: a leader paused past its lease finds its token
// rejected once a newer leader has written.
func chargeDue(ctx context.Context, pool *pgxpool.Pool, token uint64) error {
	cond, set, arg := elector.FenceSQL("fence_token", 1, token)
	_, err := pool.Exec(ctx, `UPDATE invoices SET state = 'charged', `+set+`
		WHERE state = 'due' AND `+cond, arg)
	return err
}
