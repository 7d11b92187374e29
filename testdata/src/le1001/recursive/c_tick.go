package recursive

import (
	"database/sql"
	"time"
)

// Positive: the loop reaches the insert only through walk -> settle.
func run(db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table settlements \(via recursive.settle\); guarded by nothing`
		walk(db, 3)
	}
}

// Negative: the same recursion with nothing that writes.
func countdown(depth int) int {
	if depth > 0 {
		return countup(depth - 1)
	}
	return 0
}

func runIdle() {
	for range time.Tick(time.Minute) {
		countdown(3)
	}
}
