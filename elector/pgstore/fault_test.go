package pgstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
)

// faultEnv runs the fault scenarios on postgres. The resource is a table
// in the lease table's database, written with FencePredicate.
var faultEnv = faulttest.Env{
	Server: func(t *testing.T, private bool) faulttest.Server {
		if private {
			return testserver.NewPostgres(t).Server
		}
		return testserver.Postgres(t).Server
	},
	Open: openFault,
	Write: func(ctx context.Context, s elector.Store, term elector.Term) error {
		ps := s.(*Store)
		tag, err := ps.pool.Exec(ctx,
			"INSERT INTO fault_writes (lease, token) SELECT $1, $2 WHERE "+ps.FencePredicate(1, 2),
			term.Name, int64(term.Token))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("fenced write of token %d: %w", term.Token, elector.ErrLost)
		}
		return nil
	},
	Written: func(ctx context.Context, s elector.Store, name string) ([]uint64, error) {
		rows, err := s.(*Store).pool.Query(ctx, "SELECT token FROM fault_writes WHERE lease = $1 ORDER BY seq", name)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[uint64])
	},
}

// openFault opens a store with bounded connects and statements, so a
// stalled network costs seconds, not minutes, and creates the tables.
func openFault(t *testing.T, addr string) elector.Store {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.ConnectTimeout = time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Under a transaction-scoped lock: the child process may create it at
	// the same time, and concurrent CREATE TABLE IF NOT EXISTS can fail.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(4242)"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS fault_writes (seq bigserial PRIMARY KEY, lease text NOT NULL, token bigint NOT NULL)")
		return err
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return s
}

func TestFaults(t *testing.T) { faulttest.Run(t, faultEnv) }

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }
