package le3001

import (
	"context"

	"github.com/Azure/azure-storage-blob-go/azblob"
)

// lockContainer is the legacy client (azure-storage-blob-go) taking an
// infinite container lease as a migration lock: if the process dies the
// lease stays until someone breaks it by hand.
func lockContainer(ctx context.Context, c azblob.ContainerURL, owner string) (string, error) {
	resp, err := c.AcquireLease(ctx, owner, -1, azblob.ModifiedAccessConditions{}) // want `AcquireLease acquires an infinite lease \(duration -1\)`
	if err != nil {
		return "", err
	}
	return resp.LeaseID(), nil
}

// --- negatives ---

// lockBlob takes a 60 s lease with the legacy client: it expires.
func lockBlob(ctx context.Context, b azblob.BlobURL, owner string) (string, error) {
	resp, err := b.AcquireLease(ctx, owner, 60, azblob.ModifiedAccessConditions{})
	if err != nil {
		return "", err
	}
	return resp.LeaseID(), nil
}
