package azure

import (
	"context"
	"database/sql"

	"github.com/Azure/azure-storage-blob-go/azblob"
)

// rotate takes the container lease with the legacy client and breaks it
// when done.
func rotate(ctx context.Context, cu azblob.ContainerURL, db *sql.DB) error {
	if _, err := cu.AcquireLease(ctx, "", 30, azblob.ModifiedAccessConditions{}); err != nil {
		return err
	}
	defer cu.BreakLease(ctx, 0, azblob.ModifiedAccessConditions{}) // want `BreakLease releases the container lease cu that this function acquired .* cu.ReleaseLease\(ctx, leaseID, azblob.ModifiedAccessConditions\{\}\)`
	_, err := db.ExecContext(ctx, `UPDATE keys SET rotated_at = now() WHERE active`)
	return err
}

// rotateReleased releases with the lease ID.
func rotateReleased(ctx context.Context, cu azblob.ContainerURL, db *sql.DB) error {
	resp, err := cu.AcquireLease(ctx, "", 30, azblob.ModifiedAccessConditions{})
	if err != nil {
		return err
	}
	defer cu.ReleaseLease(ctx, resp.LeaseID(), azblob.ModifiedAccessConditions{})
	_, err = db.ExecContext(ctx, `UPDATE keys SET rotated_at = now() WHERE active`)
	return err
}
