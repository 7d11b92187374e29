package le2001 // want package:"4 scheduler sites"

import (
	"database/sql"
	"time"

	"github.com/robfig/cron/v3"
)

// Two jobs in one package write the invoices table on their own schedules.
func Start(db *sql.DB, c *cron.Cron) {
	go func() {
		for range time.Tick(time.Hour) {
			db.Exec(`UPDATE invoices SET state = 'overdue' WHERE due_at < now() AND state = 'open'`)
		}
	}()
	c.AddFunc("@daily", func() { // want `cron.Cron.AddFunc on "@daily" in Start and time.Tick every 1h0m0s in Start both write table invoices`
		db.Exec(`INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE billing_day = extract(day from now())`)
	})
}

// Negative: different tables.
func Other(db *sql.DB) {
	go func() {
		for range time.Tick(time.Hour) {
			db.Exec(`INSERT INTO audit_rollups (day) VALUES (current_date)`)
		}
	}()
	for range time.Tick(time.Minute) {
		db.Exec(`INSERT INTO metrics_rollups (minute) VALUES (now())`)
	}
}

// Negative: a table name we cannot read.
func Dynamic(db *sql.DB, table string) {
	go func() {
		for range time.Tick(time.Hour) {
			db.Exec("DELETE FROM " + table + " WHERE done")
		}
	}()
	for range time.Tick(time.Minute) {
		db.Exec("UPDATE " + table + " SET n = 1")
	}
}

// Negative: both are coordinated by an advisory lock whose answer gates
// the work.
func Coordinated(db *sql.DB) {
	go func() {
		for range time.Tick(time.Hour) {
			tx, _ := db.Begin()
			var won bool
			tx.QueryRow(`SELECT pg_try_advisory_xact_lock(7)`).Scan(&won)
			if !won {
				tx.Rollback()
				continue
			}
			tx.Exec(`UPDATE ledger SET closed = true WHERE day < current_date`)
		}
	}()
	for range time.Tick(time.Minute) {
		tx, _ := db.Begin()
		var won bool
		tx.QueryRow(`SELECT pg_try_advisory_xact_lock(7)`).Scan(&won)
		if !won {
			tx.Rollback()
			continue
		}
		tx.Exec(`INSERT INTO ledger (day) VALUES (current_date)`)
	}
}
