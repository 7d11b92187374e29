// Package pgonly opens no embedded engine: its handle's writes stay
// effects whatever the statement.
package pgonly

import (
	"context"
	"database/sql"
	"time"
)

// Store keeps rows on a MySQL server.
type Store struct {
	db *sql.DB
}

// Open opens the server's database.
func (s *Store) Open(dsn string) (err error) {
	s.db, err = sql.Open("mysql", dsn)
	return err
}

// Mark writes every minute.
func (s *Store) Mark(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table marks`
		_, _ = s.db.ExecContext(ctx, "INSERT INTO marks (at) VALUES (1)")
	}
}
