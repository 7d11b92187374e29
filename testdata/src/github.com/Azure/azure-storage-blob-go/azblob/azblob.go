// Package azblob is a stub of github.com/Azure/azure-storage-blob-go/azblob
// (the legacy Azure Blob client, v0.15) for analyzer tests: the URL types'
// lease methods with their real signatures, trivial bodies.
package azblob

import (
	"context"
	"time"
)

// ETag is an entity tag.
type ETag string

// ModifiedAccessConditions identifies standard HTTP access conditions.
type ModifiedAccessConditions struct {
	IfModifiedSince   time.Time
	IfUnmodifiedSince time.Time
	IfMatch           ETag
	IfNoneMatch       ETag
}

// BlobURL represents a URL to an Azure Storage blob.
type BlobURL struct{ url string }

// BlockBlobURL defines a set of operations applicable to block blobs.
type BlockBlobURL struct {
	BlobURL
}

// ContainerURL represents a URL to the Azure Storage container.
type ContainerURL struct{ url string }

type (
	BlobAcquireLeaseResponse      struct{ leaseID string }
	BlobRenewLeaseResponse        struct{}
	BlobReleaseLeaseResponse      struct{}
	BlobBreakLeaseResponse        struct{}
	ContainerAcquireLeaseResponse struct{ leaseID string }
	ContainerRenewLeaseResponse   struct{}
	ContainerReleaseLeaseResponse struct{}
	ContainerBreakLeaseResponse   struct{}
)

// LeaseID returns the value for header x-ms-lease-id.
func (r BlobAcquireLeaseResponse) LeaseID() string { return r.leaseID }

// LeaseID returns the value for header x-ms-lease-id.
func (r ContainerAcquireLeaseResponse) LeaseID() string { return r.leaseID }

// AcquireLease acquires a lease on the blob; duration is 15 to 60 seconds,
// or -1 for an infinite lease.
func (b BlobURL) AcquireLease(ctx context.Context, proposedID string, duration int32, ac ModifiedAccessConditions) (*BlobAcquireLeaseResponse, error) {
	return &BlobAcquireLeaseResponse{}, nil
}

// RenewLease renews the blob's previously-acquired lease.
func (b BlobURL) RenewLease(ctx context.Context, leaseID string, ac ModifiedAccessConditions) (*BlobRenewLeaseResponse, error) {
	return &BlobRenewLeaseResponse{}, nil
}

// ReleaseLease releases the blob's previously-acquired lease.
func (b BlobURL) ReleaseLease(ctx context.Context, leaseID string, ac ModifiedAccessConditions) (*BlobReleaseLeaseResponse, error) {
	return &BlobReleaseLeaseResponse{}, nil
}

// BreakLease breaks the blob's previously-acquired lease (if it exists).
func (b BlobURL) BreakLease(ctx context.Context, breakPeriodInSeconds int32, ac ModifiedAccessConditions) (*BlobBreakLeaseResponse, error) {
	return &BlobBreakLeaseResponse{}, nil
}

// AcquireLease acquires a lease on the container.
func (c ContainerURL) AcquireLease(ctx context.Context, proposedID string, duration int32, ac ModifiedAccessConditions) (*ContainerAcquireLeaseResponse, error) {
	return &ContainerAcquireLeaseResponse{}, nil
}

// RenewLease renews the container's previously-acquired lease.
func (c ContainerURL) RenewLease(ctx context.Context, leaseID string, ac ModifiedAccessConditions) (*ContainerRenewLeaseResponse, error) {
	return &ContainerRenewLeaseResponse{}, nil
}

// ReleaseLease releases the container's previously-acquired lease.
func (c ContainerURL) ReleaseLease(ctx context.Context, leaseID string, ac ModifiedAccessConditions) (*ContainerReleaseLeaseResponse, error) {
	return &ContainerReleaseLeaseResponse{}, nil
}

// BreakLease breaks the container's previously-acquired lease (if it exists).
func (c ContainerURL) BreakLease(ctx context.Context, period int32, ac ModifiedAccessConditions) (*ContainerBreakLeaseResponse, error) {
	return &ContainerBreakLeaseResponse{}, nil
}
