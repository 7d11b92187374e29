package quiet // want package:"2 scheduler sites"

// The package quiet has two scheduler sites on one table, in a directory
// whose .gatesift.yaml disables LE2001.

import (
	"database/sql"
	"time"
)

// StartPosting posts ledger entries every minute.
func StartPosting(db *sql.DB) {
	go func() {
		for range time.Tick(time.Minute) {
			db.Exec(`UPDATE ledger SET posted = true WHERE posted = false`)
		}
	}()
}

// Disabled here: this second site on ledger, started with StartPosting in
// Main, would be an LE2001 finding in a package that enables the rule.
func startReversals(db *sql.DB) {
	go func() {
		for range time.Tick(5 * time.Minute) {
			db.Exec(`UPDATE ledger SET reversed = true WHERE disputed`)
		}
	}()
}

func Main(db *sql.DB) {
	StartPosting(db)
	startReversals(db)
}
