package lease

import (
	"context"
	"time"
)

// ModifiedAccessConditions contains a group of parameters for specifying
// access conditions (an alias of the exported azblob type in the real SDK).
type ModifiedAccessConditions struct {
	IfMatch           *string
	IfModifiedSince   *time.Time
	IfNoneMatch       *string
	IfUnmodifiedSince *time.Time
	IfTags            *string
}

// BlobBreakOptions contains the optional parameters for the
// LeaseClient.BreakLease method. BreakPeriod is in seconds, 0 to 60.
type BlobBreakOptions struct {
	BreakPeriod              *int32
	ModifiedAccessConditions *ModifiedAccessConditions
}

// ContainerBreakOptions contains the optional parameters for the
// LeaseClient.BreakLease method.
type ContainerBreakOptions struct {
	BreakPeriod              *int32
	ModifiedAccessConditions *ModifiedAccessConditions
}

type (
	BlobChangeOptions        struct{ ModifiedAccessConditions *ModifiedAccessConditions }
	ContainerChangeOptions   struct{ ModifiedAccessConditions *ModifiedAccessConditions }
	ContainerReleaseOptions  struct{ ModifiedAccessConditions *ModifiedAccessConditions }
	BlobBreakResponse        struct{ LeaseTime *int32 }
	ContainerBreakResponse   struct{ LeaseTime *int32 }
	BlobChangeResponse       struct{ LeaseID *string }
	ContainerChangeResponse  struct{ LeaseID *string }
	ContainerReleaseResponse struct{}
)

// BreakLease breaks the blob's previously-acquired lease (if it exists),
// whoever holds it.
func (c *BlobClient) BreakLease(ctx context.Context, o *BlobBreakOptions) (BlobBreakResponse, error) {
	return BlobBreakResponse{}, nil
}

// ChangeLease changes the blob's lease ID.
func (c *BlobClient) ChangeLease(ctx context.Context, proposedLeaseID string, o *BlobChangeOptions) (BlobChangeResponse, error) {
	return BlobChangeResponse{}, nil
}

// BreakLease breaks the container's previously-acquired lease (if it exists).
func (c *ContainerClient) BreakLease(ctx context.Context, o *ContainerBreakOptions) (ContainerBreakResponse, error) {
	return ContainerBreakResponse{}, nil
}

// ChangeLease changes the container's lease ID.
func (c *ContainerClient) ChangeLease(ctx context.Context, proposedLeaseID string, o *ContainerChangeOptions) (ContainerChangeResponse, error) {
	return ContainerChangeResponse{}, nil
}

// ReleaseLease releases the container's previously-acquired lease.
func (c *ContainerClient) ReleaseLease(ctx context.Context, o *ContainerReleaseOptions) (ContainerReleaseResponse, error) {
	return ContainerReleaseResponse{}, nil
}

// LeaseID returns leaseID of the client.
func (c *ContainerClient) LeaseID() *string { return c.leaseID }
