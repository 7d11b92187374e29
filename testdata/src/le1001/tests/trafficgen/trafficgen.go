// Package trafficgen is a load generator an end-to-end test starts against
// a cluster: it lives under tests/, so it is a test program, not a
// replicated service, and its loop is not singleton work.
package trafficgen

import (
	"context"
	"database/sql"
	"time"
)

// Negative: the same loop as le1001/trafficgen, in a test program.
func Run(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Second) {
		db.ExecContext(ctx, `INSERT INTO orders (item) VALUES ('probe')`)
	}
}
