package lockclient // want package:"has lease wrappers"

// lockclient hands out leases of the lock service: constructors that fix
// the TTL, one that renews in the background, and a reservation that
// cannot be renewed.

import (
	"context"
	"log"
	"time"

	"le3004/leaseconcrete/lockrpc"
)

const shortTTL = 5 * time.Second

type Client struct {
	rpc        lockrpc.LockServiceClient
	defaultTTL time.Duration
}

// Lease is a key held on the lock service until its TTL passes.
type Lease struct {
	key       string
	token     string
	expiresAt time.Time
	// retryAfter is when a refused caller may ask again
	retryAfter time.Time
	c          *Client
	stop       chan struct{}
}

// grant sends the acquire (or, with the lease's token, the renewal) for
// ttl.
func (l *Lease) grant(ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err := l.c.rpc.AcquireLock(ctx, &lockrpc.LockRequest{Key: l.key, Token: l.token, TTLSeconds: int64(ttl.Seconds())})
	if err != nil {
		return err
	}
	l.token = resp.Token
	return nil
}

// grantWaiting waits up to wait for the key; the service's TTL is its
// default.
func (l *Lease) grantWaiting(wait time.Duration) error {
	resp, err := l.c.rpc.AcquireLock(context.Background(), &lockrpc.LockRequest{Key: l.key, WaitTimeout: wait.Milliseconds()})
	if err != nil {
		return err
	}
	l.token = resp.Token
	return nil
}

// Renew pushes the lease out by ttl.
func (l *Lease) Renew(ttl time.Duration) error { // want Renew:"lease renew via lockclient.Lease.Renew"
	return l.grant(ttl)
}

// Release gives the key back.
func (l *Lease) Release() error { // want Release:"lease unlock via lockclient.Lease.Release"
	_, err := l.c.rpc.ReleaseLock(context.Background(), &lockrpc.UnlockRequest{Key: l.key, Token: l.token})
	return err
}

// Stop ends the background renewal and releases.
func (l *Lease) Stop() error { // want Stop:"lease unlock via lockclient.Lease.Release"
	close(l.stop)
	return l.Release()
}

// Held asks the service whether the key is still ours.
func (l *Lease) Held() bool {
	resp, err := l.c.rpc.LockStatus(context.Background(), &lockrpc.UnlockRequest{Key: l.key, Token: l.token})
	return err == nil && resp.Token == l.token
}

// Hold takes key for the fixed short TTL, nil when the service refuses.
func (c *Client) Hold(key string) *Lease { // want Hold:"lease acquire of lockclient.Lease with a fixed TTL of 5s"
	l := &Lease{key: key, c: c, stop: make(chan struct{})}
	if err := l.grant(shortTTL); err != nil {
		return nil
	}
	return l
}

// HoldUntil asks for the client's default TTL but records a fixed 3 s
// expiry.
func (c *Client) HoldUntil(key string) *Lease { // want HoldUntil:"lease acquire of lockclient.Lease with a fixed TTL of 3s"
	l := &Lease{key: key, c: c, expiresAt: time.Now().Add(3 * time.Second)}
	if err := l.grant(c.defaultTTL); err != nil {
		return nil
	}
	return l
}

// HoldConfigured takes key for the client's configured TTL: no constant.
func (c *Client) HoldConfigured(key string) *Lease {
	l := &Lease{key: key, c: c, expiresAt: time.Now().Add(c.defaultTTL)}
	if err := l.grant(c.defaultTTL); err != nil {
		return nil
	}
	return l
}

// HoldKept takes key and renews it every third of the TTL until Stop: the
// caller holds a renewed lease.
func (c *Client) HoldKept(key string) *Lease {
	l := &Lease{key: key, c: c, stop: make(chan struct{})}
	if err := l.grant(shortTTL); err != nil {
		return nil
	}
	go l.keep(shortTTL)
	return l
}

func (l *Lease) keep(ttl time.Duration) { // want keep:"lease renew via lockclient.Lease.Renew"
	tick := time.NewTicker(ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			if err := l.Renew(ttl); err != nil {
				log.Printf("renew %s: %v", l.key, err)
			}
		}
	}
}

// HoldWatched is HoldKept's twin: its goroutine only logs when the lease
// is stopped.
func (c *Client) HoldWatched(key string) *Lease { // want HoldWatched:"lease acquire of lockclient.Lease with a fixed TTL of 5s"
	l := &Lease{key: key, c: c, stop: make(chan struct{})}
	if err := l.grant(shortTTL); err != nil {
		return nil
	}
	go func() {
		<-l.stop
		log.Printf("lease %s stopped", l.key)
	}()
	return l
}

// HoldWaiting waits at most 2 s for key: the duration is the wait, not
// the lease (Hold is its twin, the constant into the TTL).
func (c *Client) HoldWaiting(key string) *Lease {
	l := &Lease{key: key, c: c}
	if err := l.grantWaiting(2 * time.Second); err != nil {
		return nil
	}
	return l
}

// Ticket is a reservation the service grants for a duration and that
// nothing sends again: without a renewal the duration may as well be a
// wait (Lease, with Renew, is its twin).
type Ticket struct {
	key string
	c   *Client
}

func (t *Ticket) send(d time.Duration) error {
	_, err := t.c.rpc.AcquireLock(context.Background(), &lockrpc.LockRequest{Key: t.key, TTLSeconds: int64(d.Seconds())})
	return err
}

// Cancel gives the reservation back.
func (t *Ticket) Cancel() error {
	_, err := t.c.rpc.ReleaseLock(context.Background(), &lockrpc.UnlockRequest{Key: t.key})
	return err
}

// Reserve reserves key for 5 s.
func (c *Client) Reserve(key string) *Ticket {
	t := &Ticket{key: key, c: c}
	if err := t.send(shortTTL); err != nil {
		return nil
	}
	return t
}

// Peek reads who holds key, cached for 5 s: a status query takes no lease
// (HoldUntil, which sends the acquire, is its twin).
func (c *Client) Peek(key string) *Lease {
	l := &Lease{key: key, c: c, expiresAt: time.Now().Add(5 * time.Second)}
	resp, err := c.rpc.LockStatus(context.Background(), &lockrpc.UnlockRequest{Key: key})
	if err != nil {
		return nil
	}
	l.token = resp.Token
	return l
}

// HoldPaced asks for the configured TTL and sets when to ask again: that
// time is no expiry (HoldUntil is its twin).
func (c *Client) HoldPaced(key string) *Lease {
	l := &Lease{key: key, c: c, retryAfter: time.Now().Add(3 * time.Second)}
	if err := l.grant(c.defaultTTL); err != nil {
		return nil
	}
	return l
}

// HoldDirect sends the acquire itself with the fixed TTL.
func (c *Client) HoldDirect(key string) *Lease { // want HoldDirect:"lease acquire of lockclient.Lease with a fixed TTL of 5s"
	resp, err := c.rpc.AcquireLock(context.Background(), &lockrpc.LockRequest{Key: key, TTLSeconds: int64(shortTTL.Seconds())})
	if err != nil {
		return nil
	}
	return &Lease{key: key, c: c, token: resp.Token}
}

// HoldDirectWaiting is HoldDirect with the constant as the wait: no TTL.
func (c *Client) HoldDirectWaiting(key string) *Lease {
	resp, err := c.rpc.AcquireLock(context.Background(), &lockrpc.LockRequest{Key: key, WaitTimeout: shortTTL.Milliseconds()})
	if err != nil {
		return nil
	}
	return &Lease{key: key, c: c, token: resp.Token}
}

// ReleaseLogged releases and reports through the caller's logf: a release
// (by its call of Release) that also runs a callback.
func (l *Lease) ReleaseLogged(logf func(string, ...any)) error { // want ReleaseLogged:"lease unlock via lockclient.Lease.Release"
	logf("releasing %s", l.key)
	return l.Release()
}

// Report runs the caller's logf: ReleaseLogged's twin, no lease call.
func Report(logf func(string, ...any), key string) {
	logf("holding %s", key)
}

// Describe hands the lease's key to the caller's logf: a method of the
// handle, no lease call (Report is its twin).
func (l *Lease) Describe(logf func(string, ...any)) {
	logf("lease %s", l.key)
}
