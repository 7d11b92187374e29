// Package project holds the LE4002 fixtures for a project's own lease: a
// goroutine renews it in a loop through the package's calls down to a lock
// service's acquire RPC.
package project

import (
	"context"
	"time"

	"le4002/leaserpc"
)

type conn struct{ addr string }

// send asks the service for key for ttl, waiting at most timeout.
func (c *conn) send(key string, ttl, timeout time.Duration) error {
	return leaserpc.Dial(c.addr, func(cl leaserpc.LockClient) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := cl.AcquireLock(ctx, &leaserpc.LockRequest{Key: key, TTLSeconds: int64(ttl.Seconds())})
		return err
	})
}

// A per-attempt timeout in a constructor literal longer than the TTL the
// renewal loop defaults to.
type slowClient struct {
	conn       *conn
	rpcTimeout time.Duration
}

func newSlowClient(addr string) *slowClient {
	return &slowClient{
		conn:       &conn{addr: addr},
		rpcTimeout: 10 * time.Second, // want `renewal of this project's lease waits up to 10s \(context.WithTimeout around AcquireLock\) but asks for a TTL of only 7s`
	}
}

func (c *slowClient) renew(key string, ttl time.Duration) error {
	return c.conn.send(key, ttl, c.rpcTimeout)
}

func (c *slowClient) Hold(key string, ttl time.Duration, stop chan struct{}) {
	if ttl == 0 {
		ttl = 7 * time.Second
	}
	go func() {
		t := time.NewTicker(ttl / 2)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = c.renew(key, ttl)
			}
		}
	}()
}

// Negative (twin slowClient): each attempt is bounded well below the TTL.
type fastClient struct {
	conn       *conn
	rpcTimeout time.Duration
}

func newFastClient(addr string) *fastClient {
	return &fastClient{conn: &conn{addr: addr}, rpcTimeout: 2 * time.Second}
}

func (c *fastClient) Hold(key string, stop chan struct{}) {
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Second):
				_ = c.conn.send(key, 7*time.Second, c.rpcTimeout)
			}
		}
	}()
}

// Negative (twin slowClient): the timeout field is also set from a caller,
// so its value is unknown.
type tunableClient struct {
	conn       *conn
	rpcTimeout time.Duration
}

func newTunableClient(addr string) *tunableClient {
	return &tunableClient{conn: &conn{addr: addr}, rpcTimeout: 10 * time.Second}
}

func (c *tunableClient) SetTimeout(d time.Duration) { c.rpcTimeout = d }

func (c *tunableClient) Hold(key string, stop chan struct{}) {
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Second):
				_ = c.conn.send(key, 7*time.Second, c.rpcTimeout)
			}
		}
	}()
}

// Negative (twin slowClient): an exported field other packages may set.
type OpenClient struct {
	Conn       *conn
	RPCTimeout time.Duration
}

func NewOpenClient(addr string) *OpenClient {
	return &OpenClient{Conn: &conn{addr: addr}, RPCTimeout: 10 * time.Second}
}

func (c *OpenClient) Hold(key string, stop chan struct{}) {
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Second):
				_ = c.Conn.send(key, 7*time.Second, c.RPCTimeout)
			}
		}
	}()
}

// Negative (twin slowClient): the goroutine sends the acquire once, it is
// not a renewal loop.
type onceClient struct {
	conn       *conn
	rpcTimeout time.Duration
}

func newOnceClient(addr string) *onceClient {
	return &onceClient{conn: &conn{addr: addr}, rpcTimeout: 10 * time.Second}
}

func (c *onceClient) Take(key string) {
	go func() {
		_ = c.conn.send(key, 7*time.Second, c.rpcTimeout)
	}()
}

// A constant timeout written at the WithTimeout call.
func (c *conn) sendWithin15(key string, ttl time.Duration) error {
	return leaserpc.Dial(c.addr, func(cl leaserpc.LockClient) error {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second) // want `waits up to 15s .* TTL of only 10s`
		defer cancel()
		_, err := cl.AcquireLock(ctx, &leaserpc.LockRequest{Key: key, TTLSeconds: int64(ttl.Seconds())})
		return err
	})
}

func (c *conn) Keep15(key string) {
	go func() {
		for {
			time.Sleep(3 * time.Second)
			_ = c.sendWithin15(key, 10*time.Second)
		}
	}()
}

// sendClamped bounds the attempt by limit when one is given.
func (c *conn) sendClamped(key string, ttl, limit time.Duration) error {
	timeout := 10 * time.Second
	if limit > 0 {
		timeout = limit
	}
	return leaserpc.Dial(c.addr, func(cl leaserpc.LockClient) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout) // want `waits up to 10s .* TTL of only 5s`
		defer cancel()
		_, err := cl.AcquireLock(ctx, &leaserpc.LockRequest{Key: key, TTLSeconds: int64(ttl.Seconds())})
		return err
	})
}

// Both paths of the clamp are constant and at least the TTL.
func (c *conn) KeepClamped(key string) {
	go func() {
		for {
			time.Sleep(time.Second)
			_ = c.sendClamped(key, 5*time.Second, 20*time.Second)
		}
	}()
}

// Negative (twin KeepClamped): the clamp comes from the caller, so the
// timeout is unknown on one path.
func (c *conn) KeepClampedBy(key string, limit time.Duration) {
	go func() {
		for {
			time.Sleep(time.Second)
			_ = c.sendClamped(key, 6*time.Second, limit)
		}
	}()
}

// The loop's pace is longer than the TTL it asks for.
func (c *conn) KeepSlowly(key string, timeout time.Duration) {
	go func() {
		for {
			_ = c.send(key, 5*time.Second, timeout)
			time.Sleep(10 * time.Second) // want `renewed every 10s \(time.Sleep\) but each renewal asks for a TTL of only 5s`
		}
	}()
}

// Negative (twin KeepSlowly): renewed well within the TTL.
func (c *conn) KeepBriskly(key string, timeout time.Duration) {
	go func() {
		for {
			_ = c.send(key, 9*time.Second, timeout)
			time.Sleep(2 * time.Second)
		}
	}()
}

// Negative (twin slowClient): the duration goes only into the request's
// wait; the TTL is a plain number whose unit is unknown.
type waitClient struct {
	addr       string
	rpcTimeout time.Duration
}

func newWaitClient(addr string) *waitClient {
	return &waitClient{addr: addr, rpcTimeout: 10 * time.Second}
}

func (c *waitClient) try(key string, wait time.Duration) error {
	return leaserpc.Dial(c.addr, func(cl leaserpc.LockClient) error {
		ctx, cancel := context.WithTimeout(context.Background(), c.rpcTimeout)
		defer cancel()
		_, err := cl.AcquireLock(ctx, &leaserpc.LockRequest{Key: key, TTLSeconds: 7, WaitMillis: wait.Milliseconds()})
		return err
	})
}

func (c *waitClient) Hold(key string) {
	go func() {
		for {
			time.Sleep(2 * time.Second)
			_ = c.try(key, 3*time.Second)
		}
	}()
}

// sendCell bounds the attempt by a variable the callback may change.
func (c *conn) sendCell(key string, ttl time.Duration, relax bool, other time.Duration) error {
	timeout := 10 * time.Second
	return leaserpc.Dial(c.addr, func(cl leaserpc.LockClient) error {
		if relax {
			timeout = other // the callback picks its own bound
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := cl.AcquireLock(ctx, &leaserpc.LockRequest{Key: key, TTLSeconds: int64(ttl.Seconds())})
		return err
	})
}

// Negative (twin Keep15): the callback may rebind the timeout, so it is
// unknown.
func (c *conn) KeepCell(key string, other time.Duration) {
	go func() {
		for {
			time.Sleep(time.Second)
			_ = c.sendCell(key, 4*time.Second, true, other)
		}
	}()
}

// Negative (twin KeepSlowly): the long wait is only the retry while the
// lease is not held; held, it renews every 2s.
func (c *conn) KeepWhileHeld(key string, timeout time.Duration) {
	go func() {
		held := false
		for {
			held = c.send(key, 5*time.Second, timeout) == nil
			if held {
				time.Sleep(2 * time.Second)
			} else {
				time.Sleep(20 * time.Second)
			}
		}
	}()
}

// Negative (twin KeepSlowly): the pace while held is not known.
func (c *conn) KeepAtPace(key string, timeout, every time.Duration) {
	go func() {
		for {
			if c.send(key, 5*time.Second, timeout) == nil {
				time.Sleep(every)
			} else {
				time.Sleep(20 * time.Second)
			}
		}
	}()
}
