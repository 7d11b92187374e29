// Package memstore is an in-process elector.Store and elector.Watcher.
//
// It is meant for tests and single-process programs. Expiry is judged by the
// store's own clock, which can be injected with WithClock, so a test can
// drive it from virtual time. Tokens are strictly increasing per lease name.
package memstore

import (
	"context"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
)

// Store is an in-memory lease store. The zero value is not usable; call New.
type Store struct {
	now func() time.Time // what options set before New makes the server
	srv *memserver.Server
}

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store judge expiry by now instead of time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.srv = memserver.New(s.now)
	return s
}

// Acquire implements elector.Store.
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	return s.srv.Acquire(ctx, name, holder, ttl)
}

// Renew implements elector.Store.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	return s.srv.Renew(ctx, t, ttl)
}

// Release implements elector.Store.
func (s *Store) Release(ctx context.Context, t elector.Term) error { return s.srv.Release(ctx, t) }

// Read implements elector.Store.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	return s.srv.Read(ctx, name)
}

// Watch implements elector.Watcher. The channel gets a value after every
// Acquire or Release of name and is closed when ctx ends.
func (s *Store) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	return s.srv.Watch(ctx, name)
}

var (
	_ elector.Store   = (*Store)(nil)
	_ elector.Watcher = (*Store)(nil)
)
