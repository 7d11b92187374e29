package le1001

import (
	"database/sql"
	"time"
)

// Positive: a prepared insert is read back from its Prepare.
func preparedInsert(db *sql.DB) {
	stmt, _ := db.Prepare(`INSERT INTO visits (at) VALUES (now())`)
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table visits; guarded by nothing`
		stmt.Exec()
	}
}

type visits struct{ ins *sql.Stmt }

func newVisits(db *sql.DB) *visits {
	s, _ := db.Prepare(`INSERT INTO visits (at) VALUES (now())`)
	return &visits{ins: s}
}

// Positive: prepared once, kept in a field.
func (v *visits) run() {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table visits; guarded by nothing`
		v.ins.Exec()
	}
}

// Negative: a prepared statement whose text is out of sight is unknown.
func preparedOpaque(stmt *sql.Stmt) {
	for range time.Tick(time.Hour) {
		stmt.Exec()
	}
}

// Negative: a prepared delete of expired rows is idempotent.
func preparedPurge(db *sql.DB) {
	stmt, _ := db.Prepare(`DELETE FROM visits WHERE expires_at < now()`)
	for range time.Tick(time.Hour) {
		stmt.Exec()
	}
}
