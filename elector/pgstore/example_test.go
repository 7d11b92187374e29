package pgstore_test

import (
	"context"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/pgstore"
)

// A reconciler that runs on one instance at a time and fences its writes.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://app@db/app")
	if err != nil {
		log.Fatal(err)
	}
	store, err := pgstore.New(pool, pgstore.WithTable("leader_leases"))
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Migrate(ctx); err != nil { // or apply pgstore.Schema yourself
		log.Fatal(err)
	}
	c, err := elector.New(store, "billing-reconciler")
	if err != nil {
		log.Fatal(err)
	}
	err = c.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		// Every write checks the term at the lease table, under a share
		// lock: a leader paused past its lease writes nothing.
		tag, err := pool.Exec(ctx,
			"UPDATE invoices SET state = 'sent' WHERE id = $1 AND "+store.FencePredicate(2, 3),
			42, lease.Name(), int64(lease.Token()))
		if err == nil && tag.RowsAffected() == 0 {
			return nil // no longer the leader (or no such invoice)
		}
		return err
	})
	log.Print(err)
}
