// Package db is a stub of github.com/upper/db/v4 for the fixtures: only the
// session, collection and SQL builder API the lock-row reading names.
package db

import (
	"context"
	"database/sql"
)

// Cond is a condition: column (with an optional operator) to value.
type Cond map[interface{}]interface{}

// LogicalExpr is a compound condition (And, Or).
type LogicalExpr interface{ Empty() bool }

func And(conds ...LogicalExpr) LogicalExpr { return nil }
func Or(conds ...LogicalExpr) LogicalExpr  { return nil }

func (c Cond) Empty() bool { return len(c) == 0 }

type Session interface {
	SQL() SQL
	Collection(name string) Collection
}

type SQL interface {
	InsertInto(table string) Inserter
	DeleteFrom(table string) Deleter
	Select(columns ...interface{}) Selector
}

type Inserter interface {
	Columns(columns ...string) Inserter
	Values(values ...interface{}) Inserter
	Returning(columns ...string) Inserter
	SQLExecer
}

// SQLExecer runs a statement; Inserter and Deleter embed it.
type SQLExecer interface {
	Exec() (sql.Result, error)
	ExecContext(ctx context.Context) (sql.Result, error)
}

type Deleter interface {
	Where(conds ...interface{}) Deleter
	And(conds ...interface{}) Deleter
	Limit(n int) Deleter
	SQLExecer
}

type Selector interface {
	From(tables ...interface{}) Selector
	Where(conds ...interface{}) Selector
	All(dest interface{}) error
}

type InsertResult interface{ ID() interface{} }

type Collection interface {
	Insert(item interface{}) (InsertResult, error)
	Find(conds ...interface{}) Result
}

type Result interface {
	And(conds ...interface{}) Result
	Or(conds ...interface{}) Result
	Delete() error
	All(dest interface{}) error
}
