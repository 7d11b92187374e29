package pgstore

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Schema returns the SQL that creates the lease table table (see WithTable
// for valid names; "" means DefaultTable). It is idempotent and is what
// Migrate runs; teams with their own migration tool can apply it instead.
//
// The table is an ordinary logged table so leases and, above all, token
// counters survive a crash. Rows are never deleted by the store: a row's
// token column is the lease's token counter. Deleting a row would let the
// next grant start again at token 1, so do not delete or truncate it.
func Schema(table string) (string, error) {
	if table == "" {
		table = DefaultTable
	}
	if !identPattern.MatchString(table) {
		return "", fmt.Errorf("pgstore: table name %q is not a plain identifier or schema.identifier", table)
	}
	return schemaSQL(quote(table)), nil
}

func schemaSQL(ident string) string {
	return `CREATE TABLE IF NOT EXISTS ` + ident + ` (
	name       text        PRIMARY KEY,
	holder     text        NOT NULL,
	token      bigint      NOT NULL CHECK (token > 0),
	expires_at timestamptz NOT NULL,
	granted_at timestamptz NOT NULL
)`
}

// Migrate creates the store's table (DefaultTable, or WithTable's) if it
// does not exist; call it once at startup, before the first Acquire. It is
// a method so that the table it creates is the one the store uses. Several
// processes may call it at once: a transaction-scoped advisory lock
// serializes them, because concurrent CREATE TABLE IF NOT EXISTS can still
// fail on the catalog's unique index. The lock is released at commit, so no
// session state is left on the pooled connection.
func (s *Store) Migrate(ctx context.Context) error {
	return migrate(ctx, s.pool, s.table, s.ident)
}

func migrate(ctx context.Context, pool *pgxpool.Pool, table, ident string) error {
	h := fnv.New64a()
	h.Write([]byte("gatesift pgstore migrate " + table))
	key := int64(h.Sum64())
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", key); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schemaSQL(ident))
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: create table %s: %w", table, err)
	}
	return nil
}
