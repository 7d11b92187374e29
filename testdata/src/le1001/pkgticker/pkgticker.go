// Package pkgticker holds tickers created at package level, outside any
// function: the loop that receives from them is in a function of the package.
package pkgticker

import (
	"database/sql"
	"time"
)

// Positive: a package-level ticker received from in a function.
var ticker = time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table audit_rollups; guarded by nothing`

func rollup(db *sql.DB) {
	for range ticker.C {
		db.Exec("INSERT INTO audit_rollups (day) VALUES (current_date)")
	}
}

// Negative: a package-level ticker nobody receives from schedules nothing.
var idle = time.NewTicker(time.Hour)

func stopIdle() { idle.Stop() }

// Positive: a package-level ticker received from in a select.
var sweepTicker = time.NewTicker(10 * time.Minute) // want `time.NewTicker runs loop body on every replica every 10m0s: it inserts into table sweeps; guarded by nothing`

func sweep(db *sql.DB, stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-sweepTicker.C:
			db.Exec("INSERT INTO sweeps (at) VALUES (now())")
		}
	}
}
