package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// watchCheck is how long a watch waits in silence before it pings its
// connection. Without it a connection into a black hole (a partition, a
// frozen server) would keep a standby waiting for wakeups that cannot come,
// instead of closing the channel so that it polls.
var watchCheck = 10 * time.Second

// Watch implements elector.Watcher with LISTEN on a dedicated connection
// (not from the pool: a LISTEN is session state, and a pooled connection
// would carry it to other users). Acquire and Release notify in the same
// statement, so the wakeup arrives when the change is committed. An expiry
// without a release notifies nobody; candidates poll for that.
//
// The channel is closed when ctx ends or the connection breaks (a server
// restart, a network cut); the caller then polls and may watch again.
func (s *Store) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	cfg := s.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: watch %q: %w", name, err)
	}
	// LISTEN completes before Watch returns: a change committed after
	// that is never missed.
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("pgstore: watch %q: %w", name, err)
	}
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		defer conn.Close(context.Background())
		for {
			n, err := s.waitNotification(ctx, conn)
			if err != nil {
				return
			}
			if n == nil {
				continue // quiet, but the connection answered a ping
			}
			if n.Payload != name {
				continue
			}
			select {
			case ch <- struct{}{}:
			default: // a wakeup is already pending; one is enough
			}
		}
	}()
	return ch, nil
}

// waitNotification waits up to watchCheck for a notification. After a
// quiet period it pings the connection and returns nil, nil if it answered.
func (s *Store) waitNotification(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	wctx, cancel := context.WithTimeout(ctx, watchCheck)
	n, err := conn.WaitForNotification(wctx)
	cancel()
	if err == nil {
		return n, nil
	}
	if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed() {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, watchCheck)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		return nil, err
	}
	return nil, nil
}
