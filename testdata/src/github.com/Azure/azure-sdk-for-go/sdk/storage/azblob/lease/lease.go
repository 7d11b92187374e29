// Package lease is a stub of
// github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease for analyzer
// tests: the lease methods with their real signatures, trivial bodies. The
// constructors (generic over the blob client packages) are left out;
// fixtures take a *BlobClient as a parameter.
package lease

import "context"

// BlobClient provides lease functionality for the underlying blob client.
type BlobClient struct {
	leaseID *string
}

// ContainerClient provides lease functionality for the underlying container client.
type ContainerClient struct {
	leaseID *string
}

type (
	BlobAcquireOptions       struct{}
	BlobRenewOptions         struct{}
	BlobReleaseOptions       struct{}
	ContainerAcquireOptions  struct{}
	ContainerRenewOptions    struct{}
	BlobAcquireResponse      struct{ LeaseID *string }
	BlobRenewResponse        struct{ LeaseID *string }
	BlobReleaseResponse      struct{}
	ContainerAcquireResponse struct{ LeaseID *string }
	ContainerRenewResponse   struct{ LeaseID *string }
)

// AcquireLease acquires a lease on the blob; duration is 15 to 60 seconds,
// or -1 for an infinite lease.
func (c *BlobClient) AcquireLease(ctx context.Context, duration int32, o *BlobAcquireOptions) (BlobAcquireResponse, error) {
	return BlobAcquireResponse{}, nil
}

func (c *BlobClient) RenewLease(ctx context.Context, o *BlobRenewOptions) (BlobRenewResponse, error) {
	return BlobRenewResponse{}, nil
}

func (c *BlobClient) ReleaseLease(ctx context.Context, o *BlobReleaseOptions) (BlobReleaseResponse, error) {
	return BlobReleaseResponse{}, nil
}

func (c *BlobClient) LeaseID() *string { return c.leaseID }

func (c *ContainerClient) AcquireLease(ctx context.Context, duration int32, o *ContainerAcquireOptions) (ContainerAcquireResponse, error) {
	return ContainerAcquireResponse{}, nil
}

func (c *ContainerClient) RenewLease(ctx context.Context, o *ContainerRenewOptions) (ContainerRenewResponse, error) {
	return ContainerRenewResponse{}, nil
}
