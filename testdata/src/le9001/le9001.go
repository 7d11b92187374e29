package le9001

import (
	"database/sql"
	"time"
)

// Used: suppresses the LE1001 finding on the next line; no report.
func used(db *sql.DB) {
	//gatesift:ignore LE1001 -- single-replica deployment until the elector lands
	for range time.Tick(time.Hour) {
		db.Exec(`INSERT INTO runs (at) VALUES (now())`)
	}
}

// Unused: nothing is reported here any more.
func unused(db *sql.DB) {
	//gatesift:ignore localsingleton -- was a ticker once // want `//gatesift:ignore LE1001 matched no finding`
	db.Exec(`INSERT INTO runs (at) VALUES (now())`)
}

func noReason(db *sql.DB) {
	//gatesift:ignore LE1001 // want `needs a reason`
	for range time.Tick(time.Hour) {
		db.Exec(`INSERT INTO runs (at) VALUES (now())`)
	}
}

//gatesift:frobnicate -- what // want `unknown directive //gatesift:frobnicate`
var x = 1

//gatesift:ignore LE7777 -- typo // want `names unknown rule LE7777`
var y = 2

// A per-replica declaration that the analysis uses: no report.
//
//gatesift:per-replica -- every replica compacts its own spool
func compact(db *sql.DB) {
	for range time.Tick(time.Hour) {
		db.Exec(`DELETE FROM spool WHERE done`)
	}
}

//gatesift:per-replica -- nothing scheduled here // want `attached to no function or scheduled work`
func plain() {}
