// Package clause is a minimal fake of gorm.io/gorm/clause.
package clause

type Expression interface{}

type Column struct{ Name string }

type OnConflict struct {
	Columns   []Column
	DoNothing bool
	UpdateAll bool
}
