package le1001strict

import (
	"database/sql"
	"time"
)

func purge(db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it deletes from table sessions`
		db.Exec(`DELETE FROM sessions WHERE expires_at < now()`)
	}
}
