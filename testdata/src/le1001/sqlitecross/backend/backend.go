// Package backend runs statements on handles it is given, and on the
// handles of dbcache. Written for this repository.
package backend

import (
	"database/sql"

	"le1001/sqlitecross/dbcache"
)

// Exec runs a statement on a handle it is handed.
func Exec(db *sql.DB, query string, args ...any) (sql.Result, error) {
	return db.Exec(query, args...)
}

func run(db *sql.DB, query string, args ...any) (sql.Result, error) {
	return Exec(db, query, args...)
}

// ExecLocal runs a statement on the process's own SQLite file.
func ExecLocal(query string, args ...any) (sql.Result, error) {
	db, err := dbcache.Local("state.db")
	if err != nil {
		return nil, err
	}
	return run(db, query, args...)
}

// ExecShared runs a statement on a PostgreSQL handle of the cache.
func ExecShared(query string, args ...any) (sql.Result, error) {
	db, err := dbcache.Any("postgres", "postgres://db/app")
	if err != nil {
		return nil, err
	}
	return run(db, query, args...)
}

// ExecMixed runs a statement on a handle that may have been adopted.
func ExecMixed(query string, args ...any) (sql.Result, error) {
	db, err := dbcache.Mixed("state.db")
	if err != nil {
		return nil, err
	}
	return run(db, query, args...)
}
