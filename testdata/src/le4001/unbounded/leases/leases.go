// Package leases runs a primary's renewal loop over a Lease interface that
// knows nothing of Consul; package consullease implements it.
package leases

import (
	"context"
	"errors"
	"time"
)

// ErrExpired says the lease is gone.
var ErrExpired = errors.New("lease expired")

// Lease is a held lease.
type Lease interface {
	Renew(ctx context.Context) error // want Renew:`pacedRenew\(leases.go:41\)`
	TTL() time.Duration
}

// Prober is checked once at startup.
type Prober interface {
	Probe(ctx context.Context) error
}

// Store is primary while it holds a lease.
type Store struct {
	primary chan struct{}
}

func (s *Store) demote() {
	close(s.primary)
}

// HoldPrimary renews the lease every half TTL and steps down when a renewal fails.
func (s *Store) HoldPrimary(ctx context.Context, l Lease) error {
	defer func() { s.demote() }()
	wait := l.TTL() / 2
	for {
		select {
		case <-time.After(wait):
			if err := l.Renew(ctx); err == ErrExpired {
				return err
			} else if err != nil {
				wait = time.Second
				continue
			}
			wait = l.TTL() / 2
		case <-ctx.Done():
			return nil
		}
	}
}

// Check probes once.
func Check(ctx context.Context, p Prober) error {
	return p.Probe(ctx)
}
