// Package recursive holds two mutually recursive functions in two files:
// settle writes, walk reaches the write only through settle. The file
// with settle sorts (and is parsed) first, so a summary order by token.Pos
// computed walk inside settle's recursion, where settle was cut.
package recursive

import "database/sql"

func settle(db *sql.DB, depth int) {
	db.Exec("INSERT INTO settlements (depth) VALUES ($1)", depth)
	if depth > 0 {
		walk(db, depth-1)
	}
}
