package commute // want package:"6 scheduler sites"

// Schedulers whose writes to a shared table commute: in whatever order they
// land, the table ends the same, so LE2001 leaves the pair alone (LE1001
// still judges each job on its own).

import (
	"database/sql"
	"time"
)

// Negative: two cleanups that only delete from sessions.
func Cleanups(db *sql.DB) {
	go func() {
		for range time.Tick(time.Hour) {
			db.Exec(`DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE disabled)`)
		}
	}()
	for range time.Tick(10 * time.Minute) {
		db.Exec(`DELETE FROM sessions WHERE revoked`)
	}
}

// Negative: two jobs that only bump the same version counter.
func Bumps(db *sql.DB) {
	go func() {
		for range time.Tick(time.Minute) {
			db.Exec(`UPDATE tasks_version SET version = version + 1 WHERE scope = 'zombie'`)
		}
	}()
	for range time.Tick(5 * time.Minute) {
		db.Exec(`UPDATE tasks_version SET version = version + 1 WHERE scope = 'endless'`)
	}
}

// Positive: one job deletes the rows another one updates: the order
// decides what is left.
func DeleteAndUpdate(db *sql.DB) {
	go func() {
		for range time.Tick(time.Hour) {
			db.Exec(`DELETE FROM carts WHERE abandoned`)
		}
	}()
	for range time.Tick(time.Minute) { // want `time.Tick every 1m0s in DeleteAndUpdate and time.Tick every 1h0m0s in DeleteAndUpdate both write table carts`
		db.Exec(`UPDATE carts SET abandoned = true WHERE updated_at < now() - interval '1 day'`)
	}
}
