// Package lockbuilt builds a client-go lock inside periodic work and never
// runs an election with it: building a lock holds nothing.
package lockbuilt

import (
	"context"
	"database/sql"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Positive: the lock is built each tick, never acquired; the insert runs on
// every replica.
func builtOnly(ctx context.Context, db *sql.DB, id string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table invoices; guarded by nothing`
		if _, err := resourcelock.New(resourcelock.LeasesResourceLock, "ns", "billing", nil, nil, resourcelock.ResourceLockConfig{Identity: id}); err != nil {
			continue
		}
		db.ExecContext(ctx, "INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due")
	}
}
