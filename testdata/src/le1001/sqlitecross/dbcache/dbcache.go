// Package dbcache opens database handles by data source and keeps them in
// a map: Local opens SQLite files only; Any opens the driver it is given;
// Mixed also keeps handles it is handed. Written for this repository.
package dbcache

import (
	"database/sql"
	"sync"
)

var (
	local   = map[string]*sql.DB{}
	localMu sync.Mutex
)

// Local returns the SQLite handle of a file, opened once.
func Local(path string) (*sql.DB, error) {
	localMu.Lock()
	defer localMu.Unlock()
	if _, ok := local[path]; !ok {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			return db, err
		}
		local[path] = db
	}
	return local[path], nil
}

var anyDB = map[string]*sql.DB{}

// Any returns a handle of the driver it is given.
func Any(driver, dsn string) (*sql.DB, error) {
	if db, ok := anyDB[dsn]; ok {
		return db, nil
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	anyDB[dsn] = db
	return db, nil
}

var mixed = map[string]*sql.DB{}

// Adopt keeps a handle opened elsewhere.
func Adopt(name string, db *sql.DB) { mixed[name] = db }

// Mixed returns the SQLite handle of a file, or one adopted under its name.
func Mixed(path string) (*sql.DB, error) {
	if db, ok := mixed[path]; ok {
		return db, nil
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	mixed[path] = db
	return db, nil
}
