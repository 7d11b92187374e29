// Package gorm is a minimal stand-in for gorm.io/gorm: the call shapes the
// effects analysis reads, nothing more.
package gorm

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// DB is a session; every builder method returns the next one.
type DB struct{ Error error }

// Expression is a SQL expression used as an update value.
type Expression struct{ SQL string }

// Expr builds an expression.
func Expr(sql string, args ...any) Expression { return Expression{SQL: sql} }

func (db *DB) Model(value any) *DB                    { return db }
func (db *DB) Where(query any, args ...any) *DB       { return db }
func (db *DB) Create(value any) *DB                   { return db }
func (db *DB) Save(value any) *DB                     { return db }
func (db *DB) Update(column string, value any) *DB    { return db }
func (db *DB) UpdateColumn(col string, value any) *DB { return db }
func (db *DB) Updates(values any) *DB                 { return db }
func (db *DB) Delete(value any, conds ...any) *DB     { return db }
func (db *DB) Exec(sql string, values ...any) *DB     { return db }

// What the lock-row recognition (analyzers/lockfacts) reads besides: the
// base model users embed, context and table selection, clauses, and
// transactions.

// Model is the base model gorm users embed.
type Model struct {
	ID        uint `gorm:"primarykey"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (db *DB) WithContext(ctx context.Context) *DB                  { return db }
func (db *DB) Table(name string, args ...any) *DB                   { return db }
func (db *DB) Or(query any, args ...any) *DB                        { return db }
func (db *DB) Clauses(conds ...clause.Expression) *DB               { return db }
func (db *DB) Transaction(fc func(tx *DB) error, opts ...any) error { return nil }
