package testserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

// FreePort returns a loopback TCP port that was free a moment ago. Another
// process may take it before the caller binds it; Launch retries for that.
func FreePort(t testing.TB) int {
	t.Helper()
	ports, err := FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return ports[0]
}

// FreePorts returns n distinct free loopback ports. All listeners are held
// open until every port is chosen, so the ports differ from each other.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ErrExited means the server process ended while it was awaited.
var ErrExited = errors.New("server process exited")

// WaitReady polls ready, backing off from 5 ms to 100 ms, until it returns
// nil, ctx ends, or exited (may be nil) is closed. It returns the last error
// from ready when it gives up, so a failure says why.
func WaitReady(ctx context.Context, exited <-chan struct{}, ready func(ctx context.Context) error) error {
	wait := 5 * time.Millisecond
	for {
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		err := ready(attempt)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%w (last check: %v)", ErrExited, err)
		case <-ctx.Done():
			return fmt.Errorf("%w (last check: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		if wait < 100*time.Millisecond {
			wait *= 2
		}
	}
}

// DialCheck is a Ready function that succeeds once addr accepts TCP
// connections; servers with a protocol should check more than that.
func DialCheck(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}
