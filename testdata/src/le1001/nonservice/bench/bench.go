// Package bench is the positive twin of cmd/orders-bench: a library package
// under a bench path element is no program, and a service may import it.
package bench

import (
	"database/sql"
	"time"
)

func Load(db *sql.DB) {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
}
