// Package sqlitelocal: periodic work that writes SQL into an embedded
// engine the process opened itself (an SQLite file, an in-memory
// database): local state, per replica. Twins: the same code on a
// "postgres" handle, on a handle of unknown origin (a parameter), on an
// exported field another package may set, and on an SQLite driver given a
// network address.
package sqlitelocal

import (
	"context"
	"database/sql"
	"time"
)

// Cache keeps its bookkeeping in a local SQLite file.
type Cache struct {
	path string
	db   *sql.DB
}

// Open opens the cache's file.
func (c *Cache) Open() error {
	var err error
	if c.db, err = sql.Open("sqlite", "file:"+c.path+"?_pragma=busy_timeout(5000)"); err != nil {
		return err
	}
	return nil
}

// Close forgets the handle.
func (c *Cache) Close() error {
	err := c.db.Close()
	c.db = nil
	return err
}

// Sweep records a sequence number every minute, in a transaction.
func (c *Cache) Sweep(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for range t.C {
		tx, err := c.db.BeginTx(ctx, nil)
		if err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO seq (id) VALUES (1)"); err != nil {
			_ = tx.Rollback()
			continue
		}
		_ = tx.Commit()
	}
}

// Mark writes straight on the handle, through a helper.
func (c *Cache) Mark(ctx context.Context) {
	for range time.Tick(time.Minute) {
		_, _ = c.handle().ExecContext(ctx, "INSERT INTO marks (at) VALUES (1)")
	}
}

func (c *Cache) handle() *sql.DB { return c.db }

// memdb is an in-memory database of this process.
var memdb, _ = sql.Open("sqlite3", ":memory:")

// Tally counts in memory.
func Tally(ctx context.Context) {
	for range time.Tick(time.Minute) {
		_, _ = memdb.ExecContext(ctx, "INSERT INTO tallies (n) VALUES (1)")
	}
}

// Shared keeps its rows in a Postgres server every replica reaches.
type Shared struct {
	db *sql.DB
}

// OpenShared opens the server's database.
func OpenShared(dsn string) (*Shared, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	return &Shared{db: db}, nil
}

// Sweep is Cache.Sweep on the shared server.
func (s *Shared) Sweep(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table seq`
	defer t.Stop()
	for range t.C {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO seq (id) VALUES (1)"); err != nil {
			_ = tx.Rollback()
			continue
		}
		_ = tx.Commit()
	}
}

// Given writes on a handle its caller chose: its engine is unknown here.
func Given(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table marks`
		_, _ = db.ExecContext(ctx, "INSERT INTO marks (at) VALUES (1)")
	}
}

// Exposed opens SQLite into an exported field, which other packages may
// set to any handle.
type Exposed struct {
	DB *sql.DB
}

// NewExposed opens the file.
func NewExposed(path string) *Exposed {
	db, _ := sql.Open("sqlite", path)
	return &Exposed{DB: db}
}

// Mark writes on the exported field.
func (e *Exposed) Mark(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table marks`
		_, _ = e.DB.ExecContext(ctx, "INSERT INTO marks (at) VALUES (1)")
	}
}

// remote is an SQLite-speaking server reached over the network.
var remote, _ = sql.Open("sqlite", "https://db.example.com/main")

// Remote writes to the server.
func Remote(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table tallies`
		_, _ = remote.ExecContext(ctx, "INSERT INTO tallies (n) VALUES (1)")
	}
}
