package loud // want package:"3 scheduler sites"

// The package loud starts a site of le2001/quiet next to one of its own:
// the pair is reported here although quiet's configuration disables LE2001.

import (
	"database/sql"
	"time"

	"le2001/quiet"
)

func Run(db *sql.DB) {
	quiet.StartPosting(db)
	for range time.Tick(time.Hour) { // want `time.Tick every 1h0m0s in Run and time.Tick every 1m0s in StartPosting both write table ledger`
		db.Exec(`UPDATE ledger SET archived = true WHERE posted`)
	}
}
