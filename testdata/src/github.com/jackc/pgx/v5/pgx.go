// Package pgx is a stub of github.com/jackc/pgx/v5 for analyzer tests: real
// signatures, trivial bodies.
package pgx

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrNoRows occurs when rows are expected but none are returned.
var ErrNoRows = errors.New("no rows in result set")

// Conn is a PostgreSQL connection handle.
type Conn struct{}

func Connect(ctx context.Context, connString string) (*Conn, error) { return &Conn{}, nil }

func (c *Conn) Close(ctx context.Context) error { return nil }
func (c *Conn) Ping(ctx context.Context) error  { return nil }
func (c *Conn) Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, nil
}
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (Rows, error) { return nil, nil }
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) Row        { return nil }
func (c *Conn) SendBatch(ctx context.Context, b *Batch) BatchResults             { return nil }
func (c *Conn) CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error) {
	return 0, nil
}
func (c *Conn) Begin(ctx context.Context) (Tx, error)                        { return nil, nil }
func (c *Conn) BeginTx(ctx context.Context, txOptions TxOptions) (Tx, error) { return nil, nil }

// TxOptions are transaction modes within a transaction block.
type TxOptions struct {
	IsoLevel   string
	AccessMode string
}

// Tx represents a database transaction.
type Tx interface {
	Begin(ctx context.Context) (Tx, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	CopyFrom(ctx context.Context, tableName Identifier, columnNames []string, rowSrc CopyFromSource) (int64, error)
	SendBatch(ctx context.Context, b *Batch) BatchResults
	Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error)
	Exec(ctx context.Context, sql string, arguments ...any) (commandTag pgconn.CommandTag, err error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
	Conn() *Conn
}

// Row is one row of a query result.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result set of a query.
type Rows interface {
	Close()
	Err() error
	Next() bool
	Scan(dest ...any) error
	Values() ([]any, error)
}

// Identifier is a PostgreSQL identifier or name.
type Identifier []string

// CopyFromSource is the interface used by CopyFrom as the source for copy data.
type CopyFromSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

func CopyFromRows(rows [][]any) CopyFromSource { return nil }

// Batch queries are a way of bundling multiple queries together.
type Batch struct{}

func (b *Batch) Queue(query string, arguments ...any) *QueuedQuery { return &QueuedQuery{} }
func (b *Batch) Len() int                                          { return 0 }

// QueuedQuery is a query that has been queued for execution via a Batch.
type QueuedQuery struct{ SQL string }

// BatchResults are the results of a batch.
type BatchResults interface {
	Exec() (pgconn.CommandTag, error)
	Query() (Rows, error)
	QueryRow() Row
	Close() error
}
