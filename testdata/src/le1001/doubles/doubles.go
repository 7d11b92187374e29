// Package doubles: interface calls whose implementations include test
// doubles, told apart by the words of their names, not by substrings.
package doubles

import (
	"context"
	"database/sql"
	"time"
)

type PriceStore interface {
	Save(ctx context.Context) error
}

// latestPrices is real although "latest" contains "test".
type latestPrices struct{ db *sql.DB }

func (p *latestPrices) Save(ctx context.Context) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO prices (symbol, price) SELECT symbol, last FROM quotes`)
	return err
}

// MockPriceStore is a test double: skipped.
type MockPriceStore struct{}

func (MockPriceStore) Save(ctx context.Context) error { return nil }

// Positive: latestPrices is what runs; the mock does not make it unknown.
func SnapshotPrices(ctx context.Context, s PriceStore) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table prices \(via doubles.\(\*latestPrices\).Save\)`
		s.Save(ctx)
	}
}

type Entries interface {
	Close(ctx context.Context) error
}

// Contest is real although it contains "test".
type Contest struct{ db *sql.DB }

func (c *Contest) Close(ctx context.Context) error {
	_, err := c.db.ExecContext(ctx, `INSERT INTO winners (contest_id) SELECT id FROM contests WHERE ends_at < now()`)
	return err
}

// fakeDB is a test double: skipped.
type fakeDB struct{}

func (*fakeDB) Close(ctx context.Context) error { return nil }

// Positive: Contest is what runs.
func CloseContests(ctx context.Context, e Entries) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table winners \(via doubles.\(\*Contest\).Close\)`
		e.Close(ctx)
	}
}

type Archiver interface {
	Archive(ctx context.Context) error
}

type sqlArchiver struct{ db *sql.DB }

func (a *sqlArchiver) Archive(ctx context.Context) error {
	_, err := a.db.ExecContext(ctx, `INSERT INTO archive SELECT * FROM events`)
	return err
}

// attestedArchiver has no shared effect and is no test double ("attested"
// contains "test"): it is a real alternative.
type attestedArchiver struct{ n int }

func (a *attestedArchiver) Archive(ctx context.Context) error { a.n++; return nil }

// Negative: which implementation runs decides, and the analysis cannot see
// that; the substring match skipped attestedArchiver and reported.
func ArchiveEvents(ctx context.Context, a Archiver) {
	for range time.Tick(time.Hour) {
		a.Archive(ctx)
	}
}
