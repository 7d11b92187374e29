package testserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresServer is a real postgres with trust authentication on loopback,
// superuser "postgres".
type PostgresServer struct {
	*Server
}

// postgresDirs are where Debian's postgresql packages put the binaries.
var postgresDirs = []string{"/usr/lib/postgresql/*/bin"}

// Postgres returns the postgres shared by the test binary (see Main),
// skipping or failing the test when postgres is not installed.
func Postgres(t testing.TB) *PostgresServer {
	t.Helper()
	spec := postgresSpec(t)
	return &PostgresServer{Shared(t, "postgres", func() Spec { return spec })}
}

// NewPostgres starts a private postgres for one test, for tests that
// restart, kill or pause it.
func NewPostgres(t testing.TB) *PostgresServer {
	t.Helper()
	return &PostgresServer{Start(t, postgresSpec(t))}
}

func postgresSpec(t testing.TB) Spec {
	t.Helper()
	bin := Binary(t, "postgres", "postgresql", postgresDirs...)
	initdb := filepath.Join(filepath.Dir(bin), "initdb")
	return Spec{
		Name: "postgres",
		Bin:  bin,
		// initdb and postgres refuse to run as root.
		User: "postgres",
		Setup: func(ctx context.Context, s *Server) error {
			cmd := s.Command(ctx, initdb, "-D", filepath.Join(s.Dir(), "data"),
				"-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
				"--no-sync", "--no-instructions")
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("initdb: %w\n%s", err, out)
			}
			return nil
		},
		Args: func(s *Server) []string {
			return []string{
				"-D", filepath.Join(s.Dir(), "data"),
				"-h", "127.0.0.1",
				"-p", strconv.Itoa(s.Port()),
				"-k", s.Dir(),
				// fsync=off only loses data when the machine crashes; a
				// killed postgres keeps every commit, because commits are
				// written to the kernel before they are acknowledged.
				// synchronous_commit stays on for exactly that reason.
				"-c", "fsync=off",
				"-c", "full_page_writes=off",
				"-c", "max_connections=200",
				"-c", "shared_buffers=32MB",
				"-c", "log_min_messages=warning",
			}
		},
		Ready: func(ctx context.Context, s *Server) error {
			c, err := pgx.Connect(ctx, postgresDSN(s, "postgres"))
			if err != nil {
				return err
			}
			defer c.Close(context.Background())
			_, err = c.Exec(ctx, "select 1")
			return err
		},
		// SIGINT is postgres's fast shutdown; SIGTERM would wait for
		// every client to disconnect.
		StopSignal: syscall.SIGINT,
	}
}

func postgresDSN(s *Server, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port(), db)
}

// DSN is the connection string of the default database "postgres".
func (p *PostgresServer) DSN() string { return postgresDSN(p.Server, "postgres") }

// DSNFor is the connection string of database db on this server, for
// connecting through a Proxy use ProxyDSN.
func (p *PostgresServer) DSNFor(db string) string { return postgresDSN(p.Server, db) }

// ProxyDSN is the connection string of database db through proxy.
func ProxyDSN(proxy *Proxy, db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", proxy.Addr(), db)
}

// NewDatabase creates an empty database for one test and drops it when the
// test ends; it returns the database's name and DSN. Tests sharing one
// server stay independent this way.
func (p *PostgresServer) NewDatabase(t testing.TB) (name, dsn string) {
	t.Helper()
	name = UniqueName("test")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, p.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create database "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !p.Running() {
			return
		}
		c, err := pgx.Connect(ctx, p.DSN())
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "drop database if exists "+name+" with (force)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	return name, p.DSNFor(name)
}
