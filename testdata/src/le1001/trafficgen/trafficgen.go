// Package trafficgen is the positive twin of le1001/tests/trafficgen: the
// same loop in a package that is not kept for tests is a service's job.
package trafficgen

import (
	"context"
	"database/sql"
	"time"
)

// Positive twin: outside a test tree, every replica inserts the row.
func Run(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		db.ExecContext(ctx, `INSERT INTO orders (item) VALUES ('probe')`)
	}
}
