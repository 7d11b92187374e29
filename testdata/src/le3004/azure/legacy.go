package azure

import (
	"context"
	"database/sql"
	"time"

	"github.com/Azure/azure-storage-blob-go/azblob"
)

// archive uses the legacy client: a 60 s lease on the block blob held
// while every old row is copied out.
func archive(ctx context.Context, blob azblob.BlockBlobURL, db *sql.DB, rows []Invoice) error {
	resp, err := blob.AcquireLease(ctx, "", 60, azblob.ModifiedAccessConditions{}) // want `AcquireLease takes the blob lease blob for a fixed 1m0s and holds it around work of unbounded duration \(a loop over rows calling db.ExecContext.* blob.RenewLease\(ctx, leaseID, azblob.ModifiedAccessConditions\{\}\)`
	if err != nil {
		return err
	}
	defer blob.ReleaseLease(context.Background(), resp.LeaseID(), azblob.ModifiedAccessConditions{})
	for _, r := range rows {
		db.ExecContext(ctx, `INSERT INTO archive SELECT * FROM invoices WHERE id = $1`, r.ID)
	}
	return nil
}

// archiveRenewed renews from a goroutine with the legacy client.
func archiveRenewed(ctx context.Context, blob azblob.BlockBlobURL, db *sql.DB, rows []Invoice) error {
	resp, err := blob.AcquireLease(ctx, "", 60, azblob.ModifiedAccessConditions{})
	if err != nil {
		return err
	}
	id := resp.LeaseID()
	defer blob.ReleaseLease(context.Background(), id, azblob.ModifiedAccessConditions{})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for range time.Tick(20 * time.Second) {
			if _, err := blob.RenewLease(ctx, id, azblob.ModifiedAccessConditions{}); err != nil {
				cancel()
				return
			}
		}
	}()
	for _, r := range rows {
		db.ExecContext(ctx, `INSERT INTO archive SELECT * FROM invoices WHERE id = $1`, r.ID)
	}
	return nil
}
