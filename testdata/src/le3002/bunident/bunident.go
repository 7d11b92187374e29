// Package bunident: releases of a lock row written with a query builder
// whose predicate names its columns as bound identifiers
// (Where("? = ?", bun.Ident("col"), v)), not in the query text.
package bunident

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"

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

// Negative: the release runs only while the in-process flag the acquire
// set says this instance holds the row, so a replica whose acquire failed
// never deletes another's row (twin: SchemaGate; FlagOnlyWritten).
type FlagGate struct {
	db   *bun.DB
	held bool
}

func (g *FlagGate) Lock(ctx context.Context, gate string) error {
	if _, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx); err != nil {
		return err
	}
	g.held = true
	return nil
}

func (g *FlagGate) Unlock(ctx context.Context, gate string) error {
	if !g.held {
		return errNotHeld
	}
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx)
	g.held = false
	return err
}

var errNotHeld = errors.New("gate not held")

// Negative: the flag is swapped by a compare-and-swap helper that runs the
// release only when the flag was set (twin: SchemaGate).
type SwapGate struct {
	db     *bun.DB
	locked atomic.Bool
}

func swapThen(flag *atomic.Bool, from, to bool, fn func() error) error {
	if !flag.CompareAndSwap(from, to) {
		return errNotHeld
	}
	return fn()
}

func (g *SwapGate) Lock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, false, true, func() error {
		_, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx)
		return err
	})
}

func (g *SwapGate) Unlock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, true, false, func() error {
		_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx)
		return err
	})
}

// Positive: the flag is only cleared after the delete, never tested, so
// any caller deletes the row (twin of FlagGate).
type FlagOnlyWritten struct {
	db   *bun.DB
	held bool
}

func (g *FlagOnlyWritten) Lock(ctx context.Context, gate string) error {
	if _, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx); err != nil {
		return err
	}
	g.held = true
	return nil
}

func (g *FlagOnlyWritten) Unlock(ctx context.Context, gate string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx) // want `Exec releases the lock of \(FlagOnlyWritten\).Unlock by deleting its row of model gateRow by key only`
	g.held = false
	return err
}

// Positive: the flag the release tests is a setting the acquire only
// reads, not a record that this instance holds the row (twin of FlagGate).
type OptionalGate struct {
	db      *bun.DB
	enabled bool
}

func (g *OptionalGate) Lock(ctx context.Context, gate string) error {
	if !g.enabled {
		return nil
	}
	_, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx)
	return err
}

func (g *OptionalGate) Unlock(ctx context.Context, gate string) error {
	if !g.enabled {
		return nil
	}
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx) // want `Exec releases the lock of \(OptionalGate\).Unlock by deleting its row of model gateRow by key only`
	return err
}

// Negative: the release under the held flag calls an unexported helper
// named like a release, which deletes the row; the flag guards the helper
// too (twin: ExportedHelperGate).
type HelperGate struct {
	db     *bun.DB
	locked atomic.Bool
}

func (g *HelperGate) Lock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, false, true, func() error {
		_, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx)
		return err
	})
}

func (g *HelperGate) Unlock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, true, false, func() error { return g.releaseRow(ctx, gate) })
}

func (g *HelperGate) releaseRow(ctx context.Context, gate string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx)
	return err
}

// Positive: the same helper exported: any caller deletes the row without
// the flag (twin of HelperGate).
type ExportedHelperGate struct {
	db     *bun.DB
	locked atomic.Bool
}

func (g *ExportedHelperGate) Lock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, false, true, func() error {
		_, err := g.db.NewInsert().Model(&gateRow{Gate: gate}).Exec(ctx)
		return err
	})
}

func (g *ExportedHelperGate) Unlock(ctx context.Context, gate string) error {
	return swapThen(&g.locked, true, false, func() error { return g.ReleaseRow(ctx, gate) })
}

func (g *ExportedHelperGate) ReleaseRow(ctx context.Context, gate string) error {
	_, err := g.db.NewDelete().Model((*gateRow)(nil)).Where("? = ?", bun.Ident("gate"), gate).Exec(ctx) // want `Exec releases the lock of \(ExportedHelperGate\).ReleaseRow by deleting its row of model gateRow by key only`
	return err
}
