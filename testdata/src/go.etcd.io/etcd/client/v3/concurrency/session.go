// Package concurrency is a stub of go.etcd.io/etcd/client/v3/concurrency
// (v3.6) for analyzer tests: real names and signatures, trivial bodies
// (SessionOption drops the real *zap.Logger parameter).
package concurrency

import (
	"context"

	v3 "go.etcd.io/etcd/client/v3"
)

// Session represents a lease kept alive for the lifetime of a client.
type Session struct {
	client *v3.Client
	id     v3.LeaseID
	ctx    context.Context
	donec  <-chan struct{}
}

// NewSession gets the leased session for a client.
func NewSession(client *v3.Client, opts ...SessionOption) (*Session, error) {
	return &Session{client: client}, nil
}

func (s *Session) Client() *v3.Client    { return s.client }
func (s *Session) Lease() v3.LeaseID     { return s.id }
func (s *Session) Ctx() context.Context  { return s.ctx }
func (s *Session) Done() <-chan struct{} { return s.donec }
func (s *Session) Orphan()               {}
func (s *Session) Close() error          { return nil }

type sessionOptions struct {
	ttl     int
	leaseID v3.LeaseID
	ctx     context.Context
}

// SessionOption configures Session.
type SessionOption func(*sessionOptions)

// WithTTL configures the session's TTL in seconds.
func WithTTL(ttl int) SessionOption { return func(so *sessionOptions) { so.ttl = ttl } }

// WithLease specifies the existing leaseID to be used for the session.
func WithLease(leaseID v3.LeaseID) SessionOption {
	return func(so *sessionOptions) { so.leaseID = leaseID }
}

// WithContext assigns a context to the session.
func WithContext(ctx context.Context) SessionOption {
	return func(so *sessionOptions) { so.ctx = ctx }
}
