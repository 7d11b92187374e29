package testserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

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
