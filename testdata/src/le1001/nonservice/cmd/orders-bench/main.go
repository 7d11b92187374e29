// Command orders-bench is a benchmark program: its loop loads the store.
package main

import (
	"database/sql"
	"time"
)

func main() {
	db, _ := sql.Open("postgres", "")
	for range time.Tick(time.Second) { // negative: a benchmark's main package
		db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
}
