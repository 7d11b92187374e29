// Command ordersd is the positive twin of orders-bench: the same loop in a
// service's main package.
package main

import (
	"database/sql"
	"time"
)

func main() {
	db, _ := sql.Open("postgres", "")
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
}
