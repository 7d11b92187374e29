// Package pop is a small stand-in for github.com/gobuffalo/pop/v6: the
// signatures the knowledge base names, no database behind them.
package pop

// Connection is a database connection or, inside Transaction, a
// transaction.
type Connection struct{ dsn string }

// Query is a statement built by RawQuery, run by Exec, ExecWithCount, All
// or First.
type Query struct {
	c    *Connection
	stmt string
	args []interface{}
}

func (c *Connection) RawQuery(stmt string, args ...interface{}) *Query {
	return &Query{c: c, stmt: stmt, args: args}
}

func (c *Connection) Transaction(fn func(tx *Connection) error) error { return fn(c) }

func (c *Connection) Create(model interface{}, excludeColumns ...string) error       { return nil }
func (c *Connection) Update(model interface{}, excludeColumns ...string) error       { return nil }
func (c *Connection) UpdateColumns(model interface{}, columnNames ...string) error   { return nil }
func (c *Connection) Destroy(model interface{}) error                                { return nil }
func (q *Query) Exec() error                                                         { return nil }
func (q *Query) ExecWithCount() (int, error)                                         { return 0, nil }
func (q *Query) All(models interface{}) error                                        { return nil }
func (q *Query) First(model interface{}) error                                       { return nil }
func (q *Query) UpdateQuery(model interface{}, columnNames ...string) (int64, error) { return 0, nil }
func (q *Query) Delete(model interface{}) error                                      { return nil }
