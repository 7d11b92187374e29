// Package rawjobs: the same ticker through the helper that runs on the
// handle it is handed, given one of unknown origin.
package rawjobs

import (
	"database/sql"
	"time"

	"le1001/sqlitecross/backend"
)

func Audit(db *sql.DB) {
	for range time.Tick(time.Second) { // want `inserts into table audit`
		_, _ = backend.Exec(db, "INSERT INTO audit (at) VALUES (1)")
	}
}
