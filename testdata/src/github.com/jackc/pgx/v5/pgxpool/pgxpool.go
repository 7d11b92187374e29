// Package pgxpool is a stub of github.com/jackc/pgx/v5/pgxpool for analyzer
// tests: real signatures, trivial bodies.
package pgxpool

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Pool allows for connection reuse.
type Pool struct{}

func New(ctx context.Context, connString string) (*Pool, error) { return &Pool{}, nil }

func (p *Pool) Close()                                           {}
func (p *Pool) Ping(ctx context.Context) error                   { return nil }
func (p *Pool) Acquire(ctx context.Context) (c *Conn, err error) { return &Conn{}, nil }
func (p *Pool) AcquireFunc(ctx context.Context, f func(*Conn) error) error {
	return f(&Conn{})
}
func (p *Pool) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (p *Pool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) { return nil, nil }
func (p *Pool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row        { return nil }
func (p *Pool) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults         { return nil }
func (p *Pool) Begin(ctx context.Context) (pgx.Tx, error)                            { return nil, nil }
func (p *Pool) BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error) { return nil, nil }
func (p *Pool) CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	return 0, nil
}

// Conn is an acquired *pgx.Conn from a Pool.
type Conn struct{}

func (c *Conn) Release() {}
func (c *Conn) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) { return nil, nil }
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row        { return nil }
func (c *Conn) Begin(ctx context.Context) (pgx.Tx, error)                            { return nil, nil }
func (c *Conn) Ping(ctx context.Context) error                                       { return nil }
func (c *Conn) Conn() *pgx.Conn                                                      { return nil }

// Tx represents a database transaction acquired from a Pool.
type Tx struct{}

func (tx *Tx) Commit(ctx context.Context) error   { return nil }
func (tx *Tx) Rollback(ctx context.Context) error { return nil }
func (tx *Tx) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
