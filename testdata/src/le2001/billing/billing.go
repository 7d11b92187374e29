package billing

import (
	"database/sql"
	"time"
)

// Run charges pending orders.
func Run(db *sql.DB) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		db.Exec(`UPDATE orders SET state = 'charged' WHERE state = 'pending'`)
	}
}
