// Package keeper extends a task's lease from outside the caller's package.
package keeper

import (
	"context"
	"time"

	"le3004/leaseiface/leaseapi"
)

// Keep extends t's lease every interval until ctx ends.
func Keep(ctx context.Context, t *leaseapi.Task, interval time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
			_ = t.ExtendLease(ctx, 3*interval)
		}
	}
}
