package testserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestPostgresRestartKeepsData(t *testing.T) {
	pg := NewPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exec := func(sql string) {
		t.Helper()
		c, err := pgx.Connect(ctx, pg.DSN())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		t.Helper()
		c, err := pgx.Connect(ctx, pg.DSN())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "select count(*) from t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exec("create table t (x int)")
	exec("insert into t values (1)")
	port := pg.Port()
	pg.Restart(t)
	if pg.Port() != port {
		t.Fatalf("port changed across restart: %d -> %d", port, pg.Port())
	}
	exec("insert into t values (2)")
	// A crash (SIGKILL of the whole group) must keep acknowledged commits:
	// the stores rely on it for tokens that never go back.
	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	if pg.Running() {
		t.Fatal("still running after Kill")
	}
	if _, err := pgx.Connect(ctx, pg.DSN()); err == nil {
		t.Fatal("connected to a killed server")
	}
	pg.Resume(t)
	if n := count(); n != 2 {
		t.Fatalf("rows after crash and recovery = %d, want 2", n)
	}
}

func TestPostgresSharedAndDatabases(t *testing.T) {
	a, b := Postgres(t), Postgres(t)
	if a.Server != b.Server {
		t.Fatal("Postgres under Main did not share one server")
	}
	n1, dsn1 := a.NewDatabase(t)
	n2, _ := a.NewDatabase(t)
	if n1 == n2 {
		t.Fatal("two databases with one name")
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var db string
	if err := c.QueryRow(ctx, "select current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if db != n1 {
		t.Fatalf("connected to %q, want %q", db, n1)
	}
}

// redisDo sends one inline command and returns the first reply line.
func redisDo(t *testing.T, addr, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, cmd+"\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

func TestRedisAOFSurvivesKill(t *testing.T) {
	r := NewRedis(t, RedisOptions{AOF: true})
	if got := redisDo(t, r.Addr(), "INCR n"); got != ":1" {
		t.Fatalf("INCR = %q", got)
	}
	if err := r.Kill(); err != nil {
		t.Fatal(err)
	}
	r.Resume(t)
	if got := redisDo(t, r.Addr(), "INCR n"); got != ":2" {
		t.Fatalf("INCR after kill and restart = %q, want :2 (AOF lost the write)", got)
	}
}

func TestRedisWithoutPersistenceForgets(t *testing.T) {
	// The counterpart of the AOF test: proves the restart really restarts,
	// and documents why the Redis store needs persistence or a clock floor.
	r := NewRedis(t, RedisOptions{})
	redisDo(t, r.Addr(), "INCR n")
	r.Restart(t)
	if got := redisDo(t, r.Addr(), "INCR n"); got != ":1" {
		t.Fatalf("INCR after restart without persistence = %q, want :1", got)
	}
}

func TestRedisShared(t *testing.T) {
	first, second := Redis(t), Redis(t)
	if first.Server != second.Server {
		t.Fatal("Redis under Main did not share one server")
	}
}

func TestFreePortsDistinct(t *testing.T) {
	ports, err := FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	if ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
		t.Fatalf("ports not distinct: %v", ports)
	}
}

// echoServer accepts connections and echoes lines back.
func echoServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, msg string, wait time.Duration) (string, error) {
	c.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestProxyCutStallHeal(t *testing.T) {
	p := NewProxy(t, echoServer(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c, "a", 5*time.Second); err != nil || got != "a\n" {
		t.Fatalf("through proxy: %q, %v", got, err)
	}

	p.Cut()
	if _, err := roundTrip(c, "b", 5*time.Second); err == nil {
		t.Fatal("a cut connection still answered")
	}
	c2, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if _, err := roundTrip(c2, "c", 5*time.Second); err == nil {
			t.Fatal("a new connection was served while cut")
		}
		c2.Close()
	}

	p.Heal()
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if got, err := roundTrip(c3, "d", 5*time.Second); err != nil || got != "d\n" {
		t.Fatalf("after heal: %q, %v", got, err)
	}

	p.Stall()
	_, err = roundTrip(c3, "e", 200*time.Millisecond)
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("stalled connection: want a timeout, got %v", err)
	}
	p.Heal()
	// The stalled line is delivered once healed.
	c3.SetDeadline(time.Now().Add(5 * time.Second))
	got, err := bufio.NewReader(c3).ReadString('\n')
	if err != nil || got != "e\n" {
		t.Fatalf("after healing a stall: %q, %v", got, err)
	}
}

func TestServerDirRemoved(t *testing.T) {
	var dir string
	t.Run("inner", func(t *testing.T) {
		r := NewRedis(t, RedisOptions{})
		dir = r.Dir()
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("server dir %s not removed: %v", dir, err)
	}
}

// TestPostgresKilledLeavesNothing: a killed postgres leaves a System V
// segment (and, by default, files in /dev/shm) behind; Close removes them.
func TestPostgresKilledLeavesNothing(t *testing.T) {
	var shmid int
	var dir string
	t.Run("inner", func(t *testing.T) {
		pg := NewPostgres(t)
		dir = pg.Dir()
		b, err := os.ReadFile(dir + "/data/postmaster.pid")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		f := strings.Fields(lines[6])
		if shmid, err = strconv.Atoi(f[1]); err != nil {
			t.Fatalf("postmaster.pid line 7 %q: %v", lines[6], err)
		}
		if err := pg.Kill(); err != nil {
			t.Fatal(err)
		}
	})
	var buf [256]byte // larger than struct shmid_ds
	const ipcStat = 2
	if _, _, errno := syscall.Syscall(syscall.SYS_SHMCTL, uintptr(shmid), ipcStat, uintptr(unsafe.Pointer(&buf[0]))); errno == 0 {
		t.Fatalf("shared memory segment %d of a killed postgres survived Close", shmid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("server dir %s not removed: %v", dir, err)
	}
}
