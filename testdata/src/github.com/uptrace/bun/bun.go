// Package bun is a minimal fake of github.com/uptrace/bun for analyzer
// tests: the query builders' shape, trivial bodies.
package bun

import (
	"context"
	"database/sql"
)

type DB struct{ *sql.DB }

type Tx struct{ sql.Tx }

// IDB is what DB, Conn and Tx share.
type IDB interface {
	NewInsert() *InsertQuery
	NewDelete() *DeleteQuery
	NewUpdate() *UpdateQuery
}

func (db *DB) NewInsert() *InsertQuery { return &InsertQuery{} }
func (db *DB) NewDelete() *DeleteQuery { return &DeleteQuery{} }
func (db *DB) NewUpdate() *UpdateQuery { return &UpdateQuery{} }
func (db *DB) RunInTx(ctx context.Context, opts *sql.TxOptions, fn func(ctx context.Context, tx Tx) error) error {
	return nil
}
func (tx Tx) NewInsert() *InsertQuery { return &InsertQuery{} }
func (tx Tx) NewDelete() *DeleteQuery { return &DeleteQuery{} }
func (tx Tx) NewUpdate() *UpdateQuery { return &UpdateQuery{} }

type BaseModel struct{}

// Ident is a name the builders quote as an identifier (bun.Ident is an
// alias of schema.Ident in the real module).
type Ident string

type InsertQuery struct{}

func (q *InsertQuery) Model(model interface{}) *InsertQuery                          { return q }
func (q *InsertQuery) On(s string, args ...interface{}) *InsertQuery                 { return q }
func (q *InsertQuery) ModelTableExpr(query string, args ...interface{}) *InsertQuery { return q }
func (q *InsertQuery) Ignore() *InsertQuery                                          { return q }
func (q *InsertQuery) Table(tables ...string) *InsertQuery                           { return q }
func (q *InsertQuery) Exec(ctx context.Context, dest ...interface{}) (sql.Result, error) {
	return nil, nil
}

type DeleteQuery struct{}

func (q *DeleteQuery) Model(model interface{}) *DeleteQuery                          { return q }
func (q *DeleteQuery) Where(query string, args ...interface{}) *DeleteQuery          { return q }
func (q *DeleteQuery) ModelTableExpr(query string, args ...interface{}) *DeleteQuery { return q }
func (q *DeleteQuery) WherePK(cols ...string) *DeleteQuery                           { return q }
func (q *DeleteQuery) Exec(ctx context.Context, dest ...interface{}) (sql.Result, error) {
	return nil, nil
}

type UpdateQuery struct{}

func (q *UpdateQuery) Model(model interface{}) *UpdateQuery                 { return q }
func (q *UpdateQuery) Set(query string, args ...interface{}) *UpdateQuery   { return q }
func (q *UpdateQuery) Where(query string, args ...interface{}) *UpdateQuery { return q }
func (q *UpdateQuery) Exec(ctx context.Context, dest ...interface{}) (sql.Result, error) {
	return nil, nil
}
