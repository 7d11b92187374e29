// Package blobs is a stub of
// github.com/tombuildsstuff/giovanni/storage/2018-11-09/blob/blobs (v0.15):
// the lease methods with their real signatures, trivial bodies.
package blobs

import "context"

// Client is the base client for Blob Storage Blobs.
type Client struct{}

func New() Client { return Client{} }

type AcquireLeaseInput struct {
	// The ID of the existing Lease, if leased
	LeaseID *string
	// Specifies the duration of the lease, in seconds, or negative one (-1)
	// for a lease that never expires.
	LeaseDuration int
	// The Proposed new ID for the Lease
	ProposedLeaseID *string
}

type AcquireLeaseResult struct {
	LeaseID string
}

func (client Client) AcquireLease(ctx context.Context, accountName, containerName, blobName string, input AcquireLeaseInput) (result AcquireLeaseResult, err error) {
	return AcquireLeaseResult{}, nil
}

func (client Client) ReleaseLease(ctx context.Context, accountName, containerName, blobName, leaseID string) (result struct{}, err error) {
	return struct{}{}, nil
}
