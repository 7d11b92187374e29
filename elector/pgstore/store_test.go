package pgstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func TestMain(m *testing.M) { testserver.Main(m) }

// newPool opens a pool to dsn, closed when the test ends.
func newPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newStore opens a store with its own pool on dsn and creates the table.
func newStore(t *testing.T, dsn string, opts ...Option) *Store {
	t.Helper()
	s, err := New(newPool(t, dsn), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// testDB returns the DSN of the package's shared server and a lease table
// name of the test's own: a table per test is far cheaper than a database
// per test on a busy machine.
func testDB(t *testing.T) (dsn, table string) {
	t.Helper()
	return testserver.Postgres(t).DSN(), testserver.UniqueName("leases")
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestConformance(t *testing.T) {
	dsn, table := testDB(t)
	storetest.Run(t, func(t *testing.T) elector.Store { return newStore(t, dsn, WithTable(table)) })
}

func TestConformanceCustomTable(t *testing.T) {
	dsn, _ := testDB(t)
	pool := newPool(t, dsn)
	table := testserver.UniqueName("app") + ".leader_leases"
	schema, _, _ := strings.Cut(table, ".")
	if _, err := pool.Exec(ctxT(t), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	storetest.Run(t, func(t *testing.T) elector.Store { return newStore(t, dsn, WithTable(table)) })
	var n int
	if err := pool.QueryRow(ctxT(t), "SELECT count(*) FROM "+table).Scan(&n); err != nil || n == 0 {
		t.Fatalf("custom table holds %d rows (%v); the store did not use it", n, err)
	}
}

func TestTableNameValidation(t *testing.T) {
	for _, bad := range []string{"", "1x", "a-b", `x"; drop table y; --`, "a.b.c", "a b", strings.Repeat("x", 64)} {
		if _, err := New(nil, WithTable(bad)); err == nil {
			t.Errorf("WithTable(%q) accepted", bad)
		}
		if _, err := Schema(bad); err == nil && bad != "" {
			t.Errorf("Schema(%q) accepted", bad)
		}
	}
	for _, good := range []string{"leases", "app.leases", "_x1", strings.Repeat("x", 63)} {
		if _, err := New(nil, WithTable(good)); err != nil {
			t.Errorf("WithTable(%q): %v", good, err)
		}
	}
}

func TestMigrateConcurrentAndIdempotent(t *testing.T) {
	dsn, table := testDB(t)
	pool := newPool(t, dsn)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := New(pool, WithTable(table))
			if err == nil {
				err = s.Migrate(ctxT(t))
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Migrate: %v", err)
		}
	}
	var persistence string
	err := pool.QueryRow(ctxT(t), "SELECT relpersistence FROM pg_class WHERE relname = $1", table).Scan(&persistence)
	if err != nil {
		t.Fatal(err)
	}
	if persistence != "p" {
		t.Fatalf("lease table persistence %q; want p (logged), or leases vanish in a crash", persistence)
	}
	// The documented schema is what Migrate runs.
	if def, _ := Schema(""); !strings.Contains(def, `"`+DefaultTable+`"`) {
		t.Fatalf("Schema(\"\") does not create %s: %s", DefaultTable, def)
	}
	sql, err := Schema(table)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sql, "CREATE TABLE IF NOT EXISTS") {
		t.Fatalf("Schema is not idempotent: %s", sql)
	}
	if _, err := pool.Exec(ctxT(t), sql); err != nil {
		t.Fatalf("applying Schema over Migrate: %v", err)
	}
}

func TestReleaseKeepsCounter(t *testing.T) {
	dsn, table := testDB(t)
	s := newStore(t, dsn, WithTable(table))
	name := storetest.LeaseName(t)
	t1, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctxT(t), t1); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Read(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Held || rec.Term != t1 {
		t.Fatalf("Read after Release = %+v; want the released term %+v, not held", rec, t1)
	}
	var token int64
	if err := s.pool.QueryRow(ctxT(t), "SELECT token FROM "+s.ident+" WHERE name = $1", name).Scan(&token); err != nil {
		t.Fatalf("lease row after Release: %v", err)
	}
	if uint64(token) != t1.Token {
		t.Fatalf("counter %d after Release; want %d", token, t1.Token)
	}
}

// TestPoolSafe runs many operations through one small pool from many
// goroutines: with no session state, any connection serves any call.
func TestPoolSafe(t *testing.T) {
	dsn, table := testDB(t)
	cfg, _ := pgxpool.ParseConfig(dsn)
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, _ := New(pool, WithTable(table))
	if err := s.Migrate(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	name := storetest.LeaseName(t)
	var (
		mu     sync.Mutex
		tokens = map[uint64]string{}
		wg     sync.WaitGroup
	)
	for g := 0; g < 8; g++ {
		holder := string(rune('a' + g))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				term, err := s.Acquire(ctxT(t), name, holder, time.Minute)
				if errors.Is(err, elector.ErrHeld) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if prev, dup := tokens[term.Token]; dup {
					t.Errorf("token %d granted to %s and %s", term.Token, prev, holder)
				}
				tokens[term.Token] = holder
				mu.Unlock()
				if err := s.Renew(ctxT(t), term, time.Minute); err != nil && !errors.Is(err, elector.ErrLost) {
					t.Error(err)
				}
				if err := s.Release(ctxT(t), term); err != nil && !errors.Is(err, elector.ErrLost) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if len(tokens) < 8 {
		t.Fatalf("only %d grants in 160 tries", len(tokens))
	}
}

func TestWatchIgnoresOtherNames(t *testing.T) {
	dsn, table := testDB(t)
	a, b := newStore(t, dsn, WithTable(table)), newStore(t, dsn, WithTable(table))
	name := storetest.LeaseName(t)
	ch, err := b.Watch(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	other, err := a.Acquire(ctxT(t), name+"-other", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctxT(t), other); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("woken by another lease's release")
	case <-time.After(300 * time.Millisecond):
	}
	term, err := a.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		t.Fatal("no wakeup after Acquire of the watched lease")
	}
	start := time.Now()
	if err := a.Release(ctxT(t), term); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Logf("release to wakeup: %v", time.Since(start))
	case <-time.After(2 * time.Second):
		t.Fatal("no wakeup after Release")
	}
}

// TestFencePredicate: a write carrying an ended term's token changes
// nothing, and the current term's write goes through.
func TestFencePredicate(t *testing.T) {
	dsn, table := testDB(t)
	s := newStore(t, dsn, WithTable(table))
	ctx := ctxT(t)
	accounts := testserver.UniqueName("accounts")
	if _, err := s.pool.Exec(ctx, "CREATE TABLE "+accounts+" (id int PRIMARY KEY, balance int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, "INSERT INTO "+accounts+" VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	name := storetest.LeaseName(t)
	write := func(term elector.Term, balance int) int64 {
		t.Helper()
		tag, err := s.pool.Exec(ctx,
			"UPDATE "+accounts+" SET balance = $1 WHERE id = 1 AND "+s.FencePredicate(2, 3),
			balance, term.Name, int64(term.Token))
		if err != nil {
			t.Fatal(err)
		}
		return tag.RowsAffected()
	}
	old, err := s.Acquire(ctx, name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n := write(old, 10); n != 1 {
		t.Fatalf("current term's fenced write changed %d rows; want 1", n)
	}
	if err := s.Release(ctx, old); err != nil {
		t.Fatal(err)
	}
	if n := write(old, 20); n != 0 {
		t.Fatal("released term's fenced write went through")
	}
	next, err := s.Acquire(ctx, name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n := write(old, 30); n != 0 {
		t.Fatal("stale term's fenced write went through under a new term")
	}
	if n := write(next, 40); n != 1 {
		t.Fatalf("new term's fenced write changed %d rows; want 1", n)
	}
	var balance int
	if err := s.pool.QueryRow(ctx, "SELECT balance FROM "+accounts+" WHERE id = 1").Scan(&balance); err != nil {
		t.Fatal(err)
	}
	if balance != 40 {
		t.Fatalf("balance %d; want 40", balance)
	}
}

// TestInTermOrdersWritesBeforeSuccessor: a fenced transaction that is still
// open when its term expires holds the successor's Acquire back until it
// commits, so its write cannot land after the successor's first write.
func TestInTermOrdersWritesBeforeSuccessor(t *testing.T) {
	dsn, table := testDB(t)
	a, b := newStore(t, dsn, WithTable(table)), newStore(t, dsn, WithTable(table))
	ctx := ctxT(t)
	log := testserver.UniqueName("log")
	if _, err := a.pool.Exec(ctx, "CREATE TABLE "+log+" (seq serial, token bigint)"); err != nil {
		t.Fatal(err)
	}
	name := storetest.LeaseName(t)
	old, err := a.Acquire(ctx, name, "a", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	inside := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.InTerm(ctx, old, func(tx pgx.Tx) error {
			close(inside)
			// Outlive the term while holding the fence.
			time.Sleep(600 * time.Millisecond)
			_, err := tx.Exec(ctx, "INSERT INTO "+log+" (token) VALUES ($1)", int64(old.Token))
			return err
		})
	}()
	<-inside
	time.Sleep(400 * time.Millisecond) // the term has expired by now
	next, err := b.Acquire(ctx, name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("InTerm begun inside the term: %v", err)
	}
	if err := b.InTerm(ctx, next, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO "+log+" (token) VALUES ($1)", int64(next.Token))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err = a.InTerm(ctx, old, func(pgx.Tx) error { t.Error("fn ran for an ended term"); return nil })
	if !errors.Is(err, elector.ErrLost) {
		t.Fatalf("InTerm of an ended term: %v; want ErrLost", err)
	}
	rows, err := a.pool.Query(ctx, "SELECT token FROM "+log+" ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 2 || tokens[0] != int64(old.Token) || tokens[1] != int64(next.Token) {
		t.Fatalf("log %v; want the old term's write before the new term's (%d, %d)", tokens, old.Token, next.Token)
	}
}

func TestTTLRoundsUp(t *testing.T) {
	for _, c := range []struct {
		ttl  time.Duration
		want int64
	}{{time.Microsecond, 1}, {time.Microsecond + 1, 2}, {1500 * time.Nanosecond, 2}, {time.Second, 1000000}, {1, 1}} {
		if got := ttlMicros(c.ttl); got != c.want {
			t.Errorf("ttlMicros(%v) = %d; want %d (a store may round up, never down)", c.ttl, got, c.want)
		}
	}
}
