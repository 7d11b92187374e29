// Package pgconn is a stub of github.com/jackc/pgx/v5/pgconn.
package pgconn

// CommandTag is the status text returned by PostgreSQL for a query.
type CommandTag struct{ s string }

func (ct CommandTag) RowsAffected() int64 { return 0 }
func (ct CommandTag) String() string      { return ct.s }
func (ct CommandTag) Insert() bool        { return false }
func (ct CommandTag) Update() bool        { return false }
func (ct CommandTag) Delete() bool        { return false }
func (ct CommandTag) Select() bool        { return false }

// StatementDescription is a prepared statement's description.
type StatementDescription struct {
	Name string
	SQL  string
}
