// Package certmagic is a fixture stand-in for the storage interface of
// github.com/caddyserver/certmagic: shared storage with a cluster lock.
package certmagic

import "context"

// Locker is the storage's cluster lock.
type Locker interface {
	Lock(ctx context.Context, name string) error
	Unlock(ctx context.Context, name string) error
}

// Storage is shared by every replica that is configured with it.
type Storage interface {
	Locker
	Store(ctx context.Context, key string, value []byte) error
	Load(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}
