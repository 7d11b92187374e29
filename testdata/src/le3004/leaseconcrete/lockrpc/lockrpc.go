// Package lockrpc is the generated client of a lock service: it grants a
// key for the seconds asked and forgets it once they pass.
package lockrpc

import "context"

type LockRequest struct {
	Key         string
	Token       string
	TTLSeconds  int64
	WaitTimeout int64 // milliseconds to wait for a held key
}

type LockResponse struct{ Token string }

type UnlockRequest struct{ Key, Token string }

type UnlockResponse struct{}

type LockServiceClient interface {
	AcquireLock(ctx context.Context, in *LockRequest) (*LockResponse, error)
	ReleaseLock(ctx context.Context, in *UnlockRequest) (*UnlockResponse, error)
	LockStatus(ctx context.Context, in *UnlockRequest) (*LockResponse, error)
}
