package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
			data := filepath.Join(s.Dir(), "data")
			if tmpl := postgresTemplate(ctx, initdb); tmpl != "" {
				// cp -a keeps the owner and the 0700 mode postgres insists on.
				if s.Command(ctx, "cp", "-a", tmpl, data).Run() == nil {
					return nil
				}
				os.RemoveAll(data) // fall back to initdb
			}
			return runInitdb(ctx, s.cred, initdb, data)
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
				// Dynamic shared memory as files in the data directory,
				// not in /dev/shm, where a killed server would leave them.
				"-c", "dynamic_shared_memory_type=mmap",
			}
		},
		Cleanup: removeStaleSysV,
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

func runInitdb(ctx context.Context, cred *syscall.Credential, initdb, data string) error {
	cmd := exec.CommandContext(ctx, initdb, "-D", data,
		"-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
		"--no-sync", "--no-instructions")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

// pgTemplate is a data directory initdb made once per test binary; every
// further server copies it, which costs a fraction of an initdb.
var pgTemplate struct {
	once sync.Once
	data string // "" when there is none
}

// postgresTemplate returns the template data directory, making it on first
// use; "" when it cannot be made or cleaned up (no Main), so the caller
// runs initdb itself.
func postgresTemplate(ctx context.Context, initdb string) string {
	pgTemplate.once.Do(func() {
		dir, cred, err := newDir("postgres-template", "postgres")
		if err != nil {
			os.RemoveAll(dir)
			return
		}
		if !processCache(func() { os.RemoveAll(dir) }) {
			os.RemoveAll(dir)
			return
		}
		data := filepath.Join(dir, "data")
		if err := runInitdb(ctx, cred, initdb, data); err != nil {
			return
		}
		pgTemplate.data = data
	})
	return pgTemplate.data
}

// removeStaleSysV removes the small System V shared memory segment a
// killed postgres leaves behind (a clean shutdown removes it itself). Its
// id is on line 7 of postmaster.pid, which only a server that did not shut
// down cleanly leaves.
func removeStaleSysV(s *Server) {
	b, err := os.ReadFile(filepath.Join(s.Dir(), "data", "postmaster.pid"))
	if err != nil {
		return
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 7 {
		return
	}
	f := strings.Fields(lines[6])
	if len(f) != 2 {
		return
	}
	id, err := strconv.Atoi(f[1])
	if err != nil {
		return
	}
	const ipcRmid = 0
	syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), ipcRmid, 0)
}
