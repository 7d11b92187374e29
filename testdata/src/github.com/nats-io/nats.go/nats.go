// Package nats is a stub of github.com/nats-io/nats.go (Conn.Publish's
// shape) for analysistest. Its own timers exercise the own-module rule: the
// knowledge base's send entry for Publish is how callers see the API, and
// does not apply to the client library's calls of it.
package nats

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

type Conn struct {
	mu  sync.Mutex
	out []byte
}

func Connect(url string) (*Conn, error) { return &Conn{}, nil }

// Publish queues the message on the process's own connection.
func (nc *Conn) Publish(subj string, data []byte) error {
	nc.mu.Lock()
	nc.out = append(nc.out, subj...)
	nc.out = append(nc.out, data...)
	nc.mu.Unlock()
	return nil
}

// pingLoop is the client's keepalive: every replica pings its own server
// connection, which is per-connection protocol traffic, not a duplicated
// effect on shared state. Silent.
func (nc *Conn) pingLoop(ctx context.Context, d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			nc.Publish("PING", nil)
		}
	}
}

// flushStats is the library's own timer counting into a shared Redis through
// another module's known API: the implementation's effect counts there
// (the positive twin of pingLoop).
func (nc *Conn) flushStats(ctx context.Context, rdb *redis.Client) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it increments redis key nats:published`
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rdb.IncrBy(ctx, "nats:published", int64(len(nc.out)))
		}
	}
}
