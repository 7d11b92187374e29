// Package leaserpc is a stand-in for a generated lock service client: the
// service grants a key for the seconds asked and forgets it once they pass.
package leaserpc

import "context"

type LockRequest struct {
	Key        string
	Token      string
	TTLSeconds int64
	WaitMillis int64 // how long the service may wait for a held key
}

type LockResponse struct{ Token string }

type LockClient interface {
	AcquireLock(ctx context.Context, in *LockRequest) (*LockResponse, error)
}

// Dial runs fn with a client for addr.
func Dial(addr string, fn func(LockClient) error) error { return fn(nil) }
