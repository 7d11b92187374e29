package azure

import (
	"context"
	"database/sql"
	"time"

	"github.com/Azure/azure-storage-blob-go/azblob"
)

// StartRollup takes a legacy-client lease each tick before the rollup.
func StartRollup(ctx context.Context, blob azblob.BlockBlobURL, db *sql.DB) {
	for range time.Tick(5 * time.Minute) {
		resp, err := blob.AcquireLease(ctx, "", 60, azblob.ModifiedAccessConditions{})
		if err != nil {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (bucket) VALUES (date_trunc('minute', now()))`)
		blob.ReleaseLease(ctx, resp.LeaseID(), azblob.ModifiedAccessConditions{})
	}
}
