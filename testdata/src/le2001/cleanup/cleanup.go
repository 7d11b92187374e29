package cleanup

import (
	"database/sql"
	"time"
)

// Start cancels stale orders.
func Start(db *sql.DB) {
	go func() {
		for range time.Tick(10 * time.Minute) {
			db.Exec(`UPDATE orders SET state = 'cancelled' WHERE state = 'pending' AND created_at < now() - interval '1 day'`)
		}
	}()
}
