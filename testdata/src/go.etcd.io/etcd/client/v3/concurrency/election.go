package concurrency

import (
	"context"

	v3 "go.etcd.io/etcd/client/v3"
)

// Election is a leader election on a key prefix.
type Election struct {
	session   *Session
	keyPrefix string
}

// NewElection returns a new election on a given key prefix.
func NewElection(s *Session, pfx string) *Election { return &Election{session: s, keyPrefix: pfx} }

// Campaign puts a value as eligible for the election and waits until elected.
func (e *Election) Campaign(ctx context.Context, val string) error { return nil }

// Proclaim lets the leader announce a new value without another election.
func (e *Election) Proclaim(ctx context.Context, val string) error { return nil }

// Resign lets a leader start a new election.
func (e *Election) Resign(ctx context.Context) (err error) { return nil }

// Leader returns the leader value for the current election.
func (e *Election) Leader(ctx context.Context) (*v3.GetResponse, error) { return nil, nil }

// Observe returns a channel that reliably observes ordered leader proposals.
func (e *Election) Observe(ctx context.Context) <-chan v3.GetResponse { return nil }

// Key returns the leader key if elected, empty string otherwise.
func (e *Election) Key() string { return "" }
