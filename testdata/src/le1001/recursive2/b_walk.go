package recursive2

import "database/sql"

func walk(db *sql.DB, depth int) {
	if depth > 0 {
		settle(db, depth)
	}
}
