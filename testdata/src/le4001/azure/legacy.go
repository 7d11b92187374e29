package azure

import (
	"context"
	"log"
	"time"

	"github.com/Azure/azure-storage-blob-go/azblob"
)

// legacyRenew logs the legacy client's failed renewal and goes on.
func legacyRenew(ctx context.Context, blob azblob.BlobURL, leaseID string, work func(context.Context)) {
	go func() {
		for range time.Tick(15 * time.Second) {
			if _, err := blob.RenewLease(ctx, leaseID, azblob.ModifiedAccessConditions{}); err != nil { // want `the failure of \(azblob.BlobURL\).RenewLease is only logged while the work continues`
				log.Printf("renew %s: %v", leaseID, err)
			}
		}
	}()
	work(ctx)
}

// legacyRenewStops cancels the work instead.
func legacyRenewStops(ctx context.Context, blob azblob.BlobURL, leaseID string, work func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for range time.Tick(15 * time.Second) {
			if _, err := blob.RenewLease(ctx, leaseID, azblob.ModifiedAccessConditions{}); err != nil {
				log.Printf("renew %s: %v", leaseID, err)
				cancel()
				return
			}
		}
	}()
	work(ctx)
}
