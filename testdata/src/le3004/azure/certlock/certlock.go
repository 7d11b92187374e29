// Package certlock is a certificate store's distributed Locker on Azure
// Blob leases: Lock takes a 60 s lease and returns, Unlock releases it, and
// nothing renews the lease while the caller (an ACME issuance that can take
// minutes) holds the lock.
package certlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

var errLeaseHeld = errors.New("lease held")

type Store struct {
	mu     sync.Mutex
	leases map[string]*lease.BlobClient
	newLC  func(name string) (*lease.BlobClient, error)
}

// Lock blocks until this instance holds the lease on name's lock blob.
func (s *Store) Lock(ctx context.Context, name string) error {
	lc, err := s.newLC(name + ".lock")
	if err != nil {
		return fmt.Errorf("lease client for %s: %w", name, err)
	}
	for {
		_, err := lc.AcquireLease(ctx, 60, nil) // want `AcquireLease takes the blob lease lc for a fixed 1m0s in Lock and returns holding it, and nothing in this package renews a lease`
		if err == nil {
			s.mu.Lock()
			s.leases[name] = lc
			s.mu.Unlock()
			return nil
		}
		if !errors.Is(err, errLeaseHeld) {
			return fmt.Errorf("acquire %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Unlock releases the lease Lock took.
func (s *Store) Unlock(ctx context.Context, name string) error {
	s.mu.Lock()
	lc, ok := s.leases[name]
	delete(s.leases, name)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	_, err := lc.ReleaseLease(ctx, nil)
	return err
}

// --- negatives ---

// TryLockOnce releases before returning: the caller holds nothing.
func (s *Store) TryLockOnce(ctx context.Context, name string, fn func() error) (bool, error) {
	lc, err := s.newLC(name + ".lock")
	if err != nil {
		return false, err
	}
	if _, err := lc.AcquireLease(ctx, 15, nil); err != nil {
		return false, nil
	}
	defer lc.ReleaseLease(context.Background(), nil)
	return true, nil
}

// LeaseFor hands the lease client itself to the caller, who can renew it.
func (s *Store) LeaseFor(ctx context.Context, name string) (*lease.BlobClient, error) {
	lc, err := s.newLC(name + ".lock")
	if err != nil {
		return nil, err
	}
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return nil, err
	}
	return lc, nil
}

// protect guards a blob against deletion during an upload: not a lock.
func (s *Store) protect(ctx context.Context, name string) error {
	lc, err := s.newLC(name)
	if err != nil {
		return err
	}
	if _, err := lc.AcquireLease(ctx, 15, nil); err != nil {
		return err
	}
	return nil
}
