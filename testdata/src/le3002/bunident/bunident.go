// Package bunident: releases of a lock row written with a query builder
// whose predicate names its columns as bound identifiers
// (Where("? = ?", bun.Ident("col"), v)), not in the query text.
package bunident

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
)

// gateRow is one row per gate; the surrogate key is auto-increment, the
// gate's name is unique, so a second insert of a name fails.
type gateRow struct {
	ID     int64  `bun:",pk,autoincrement"`
	Gate   string `bun:",unique"`
	Holder string
}

// Positive: the release deletes the gate's row by its name alone; the
// column is bound as an identifier.
type SchemaGate struct {
	db    *bun.DB
	table string
}

func (g *SchemaGate) Lock(ctx context.Context, gate string) error {
	_, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).ModelTableExpr(g.table).Exec(ctx)
	return err
}

func (g *SchemaGate) Unlock(ctx context.Context, gate string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).ModelTableExpr(g.table).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx) // want `Exec releases the lock of \(SchemaGate\).Unlock by deleting its row of model gateRow by key only, with no owner or token predicate`
	return err
}

// Negative: the holder column is bound as an identifier too, so the delete
// removes only this holder's row (twin: SchemaGate).
type HeldGate struct{ db *bun.DB }

func (g *HeldGate) Lock(ctx context.Context, gate, me string) error {
	_, err := g.db.NewInsert().Model(&gateRow{Gate: gate, Holder: me}).Exec(ctx)
	return err
}

func (g *HeldGate) Unlock(ctx context.Context, gate, me string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ? AND ? = ?", bun.Ident("gate"), gate, bun.Ident("holder"), me).Exec(ctx)
	return err
}

// Positive: a bound value that reads like a column name ("holder") is a
// value, not a column: the predicate tests the name only (twin of
// HeldGate, whose holder is an identifier).
type ValueGate struct{ db *bun.DB }

func (g *ValueGate) Lock(ctx context.Context) error {
	_, err := g.db.NewInsert().Model(&gateRow{Gate: "holder"}).Exec(ctx)
	return err
}

func (g *ValueGate) Unlock(ctx context.Context) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), "holder").Exec(ctx) // want `Exec releases the lock of \(ValueGate\).Unlock by deleting its row of model gateRow by key only`
	return err
}

// Negative: the release reads the holder in the same transaction first and
// deletes only when it is this replica (twin: SchemaGate).
type CheckedGate struct {
	db *bun.DB
	tx *sql.Tx
}

func (g *CheckedGate) Lock(ctx context.Context, gate, me string) error {
	_, err := g.db.NewInsert().Model(&gateRow{Gate: gate, Holder: me}).Exec(ctx)
	return err
}

func (g *CheckedGate) Unlock(ctx context.Context, gate, me string) error {
	var holder string
	if err := g.tx.QueryRowContext(ctx, "SELECT holder FROM gate_rows WHERE gate = $1 FOR UPDATE", gate).Scan(&holder); err != nil {
		return err
	}
	if holder != me {
		return nil
	}
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx)
	return err
}

// Negative: nothing of the type takes a lock by inserting the row, so the
// row is no lock in sight and its delete is a plain delete (twin:
// SchemaGate).
type GateJanitor struct{ db *bun.DB }

func (g *GateJanitor) Unlock(ctx context.Context, gate string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx)
	return err
}
