package le3001

import (
	"context"

	"github.com/tombuildsstuff/giovanni/storage/2018-11-09/blob/blobs"
)

// RemoteClient locks a state blob, as Terraform's azurerm backend does.
type RemoteClient struct {
	blobClient    blobs.Client
	accountName   string
	containerName string
	keyName       string
}

func (c *RemoteClient) Lock(id string) (string, error) {
	leaseOptions := blobs.AcquireLeaseInput{
		ProposedLeaseID: &id,
		LeaseDuration:   -1,
	}
	ctx := context.TODO()
	res, err := c.blobClient.AcquireLease(ctx, c.accountName, c.containerName, c.keyName, leaseOptions) // want `AcquireLease acquires an infinite lease \(duration -1\)`
	if err != nil {
		return "", err
	}
	return res.LeaseID, nil
}

// --- negatives ---

func (c *RemoteClient) LockFor(id string, seconds int) (string, error) {
	res, err := c.blobClient.AcquireLease(context.TODO(), c.accountName, c.containerName, c.keyName, blobs.AcquireLeaseInput{
		ProposedLeaseID: &id,
		LeaseDuration:   seconds,
	})
	return res.LeaseID, err
}

func (c *RemoteClient) Lock60(id string) (string, error) {
	in := blobs.AcquireLeaseInput{ProposedLeaseID: &id, LeaseDuration: 60}
	res, err := c.blobClient.AcquireLease(context.TODO(), c.accountName, c.containerName, c.keyName, in)
	return res.LeaseID, err
}
