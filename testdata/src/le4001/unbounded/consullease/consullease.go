// Package consullease implements leases.Lease on a Consul session. Its
// Renew, called in leases.Store's paced loop, has no deadline: reported.
// Probe, the same request never called in a loop: silent.
package consullease

import (
	"context"
	"time"

	"github.com/hashicorp/consul/api"

	"le4001/unbounded/leases"
)

// Leaser builds the client.
type Leaser struct {
	client *api.Client
}

// Open builds the client with the default config.
func (l *Leaser) Open() error {
	var err error
	l.client, err = api.NewClient(api.DefaultConfig())
	return err
}

// Lease is a Consul session held by this node.
type Lease struct {
	leaser  *Leaser
	session string
}

var _ leases.Lease = (*Lease)(nil)

// Renew ignores ctx: the request has no deadline.
func (l *Lease) Renew(ctx context.Context) error {
	entry, _, err := l.leaser.client.Session().Renew(l.session, nil) // want `this renewal has no deadline: .* runs in the paced loop at leases.go:\d+`
	if err != nil {
		return err
	}
	if entry == nil {
		return leases.ErrExpired
	}
	return nil
}

// TTL is the session's.
func (l *Lease) TTL() time.Duration { return 10 * time.Second }

// Probe renews once to see that the session exists.
func (l *Lease) Probe(ctx context.Context) error {
	_, _, err := l.leaser.client.Session().Renew(l.session, nil)
	return err
}
