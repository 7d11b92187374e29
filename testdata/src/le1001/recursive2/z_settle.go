// Package recursive2 is package recursive with the file order reversed:
// settle's file sorts last. The findings must be the same.
package recursive2

import "database/sql"

func settle(db *sql.DB, depth int) {
	db.Exec("INSERT INTO settlements (depth) VALUES ($1)", depth)
	if depth > 0 {
		walk(db, depth-1)
	}
}
