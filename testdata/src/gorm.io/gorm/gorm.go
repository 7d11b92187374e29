// Package gorm is a minimal fake of gorm.io/gorm for analyzer tests: the
// chainable DB's shape, trivial bodies.
package gorm

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

type DB struct {
	Error        error
	RowsAffected int64
}

// Model is the base model gorm users embed.
type Model struct {
	ID        uint `gorm:"primarykey"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (db *DB) WithContext(ctx context.Context) *DB                          { return db }
func (db *DB) Model(value interface{}) *DB                                  { return db }
func (db *DB) Table(name string, args ...interface{}) *DB                   { return db }
func (db *DB) Where(query interface{}, args ...interface{}) *DB             { return db }
func (db *DB) Or(query interface{}, args ...interface{}) *DB                { return db }
func (db *DB) Clauses(conds ...clause.Expression) *DB                       { return db }
func (db *DB) Create(value interface{}) *DB                                 { return db }
func (db *DB) Delete(value interface{}, conds ...interface{}) *DB           { return db }
func (db *DB) Exec(sql string, values ...interface{}) *DB                   { return db }
func (db *DB) Transaction(fc func(tx *DB) error, opts ...interface{}) error { return nil }
