package le3001

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

const infinite = -1

// leadForever takes an infinite blob lease as the leader lock.
func leadForever(ctx context.Context, lc *lease.BlobClient) error {
	_, err := lc.AcquireLease(ctx, infinite, nil) // want `AcquireLease acquires an infinite lease \(duration -1\)`
	return err
}

// --- negatives ---

// leadRenewed takes a 30 s lease and renews it, as the pattern's example does.
func leadRenewed(ctx context.Context, lc *lease.BlobClient, work func(context.Context)) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	go func() {
		for range time.Tick(10 * time.Second) {
			if _, err := lc.RenewLease(ctx, nil); err != nil {
				return
			}
		}
	}()
	work(ctx)
	return nil
}

func leaseFor(ctx context.Context, lc *lease.ContainerClient, seconds int32) error {
	_, err := lc.AcquireLease(ctx, seconds, nil)
	return err
}
