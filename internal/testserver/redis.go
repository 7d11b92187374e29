package testserver

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisServer is a real redis-server on loopback without authentication.
type RedisServer struct {
	*Server
}

// RedisOptions choose a private server's durability.
type RedisOptions struct {
	// AOF turns on the append-only file with appendfsync always, so every
	// acknowledged write (the fencing token counter in particular)
	// survives a crash or restart of redis-server.
	AOF bool
	// ReplicaOf, "host:port", starts the server as an asynchronous replica
	// of that primary.
	ReplicaOf string
}

// Redis returns the redis-server shared by the test binary (see Main), with
// persistence off for speed; skipping or failing the test when redis-server
// is not installed.
func Redis(t testing.TB) *RedisServer {
	t.Helper()
	spec := redisSpec(t, RedisOptions{})
	return &RedisServer{Shared(t, "redis", func() Spec { return spec })}
}

// NewRedis starts a private redis-server for one test, for tests that
// restart, kill or pause it.
func NewRedis(t testing.TB, opts RedisOptions) *RedisServer {
	t.Helper()
	return &RedisServer{Start(t, redisSpec(t, opts))}
}

func redisSpec(t testing.TB, opts RedisOptions) Spec {
	t.Helper()
	bin := Binary(t, "redis-server", "redis-server")
	return Spec{
		Name: "redis",
		Bin:  bin,
		Args: func(s *Server) []string {
			args := []string{
				"--port", strconv.Itoa(s.Port()),
				"--bind", "127.0.0.1",
				"--dir", s.Dir(),
				"--save", "",
				"--daemonize", "no",
				"--logfile", "",
				// A new replica is served at once, not after the
				// default 5 s wait for more replicas to batch with.
				"--repl-diskless-sync-delay", "0",
			}
			if host, port, ok := strings.Cut(opts.ReplicaOf, ":"); ok {
				args = append(args, "--replicaof", host, port)
			}
			if opts.AOF {
				args = append(args, "--appendonly", "yes", "--appendfsync", "always")
			} else {
				args = append(args, "--appendonly", "no")
			}
			return args
		},
		// PING answers -LOADING while the AOF is replayed, so a PONG means
		// the data is back.
		Ready: func(ctx context.Context, s *Server) error { return redisPing(ctx, s.Addr()) },
	}
}

func redisPing(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(time.Second))
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redis answered %q", strings.TrimSpace(line))
	}
	return nil
}
