// Package renewedlock is the same Locker with the fix: Lock starts a
// renewal goroutine that Unlock stops.
package renewedlock

import (
	"context"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

type held struct {
	lc   *lease.BlobClient
	stop context.CancelFunc
}

type Store struct {
	mu     sync.Mutex
	leases map[string]held
	newLC  func(name string) (*lease.BlobClient, error)
}

func (s *Store) Lock(ctx context.Context, name string) error {
	lc, err := s.newLC(name + ".lock")
	if err != nil {
		return err
	}
	for {
		if _, err := lc.AcquireLease(ctx, 60, nil); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	rctx, stop := context.WithCancel(context.Background())
	go renew(rctx, lc)
	s.mu.Lock()
	s.leases[name] = held{lc: lc, stop: stop}
	s.mu.Unlock()
	return nil
}

func renew(ctx context.Context, lc *lease.BlobClient) {
	t := time.NewTicker(20 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := lc.RenewLease(ctx, nil); err != nil {
				return
			}
		}
	}
}

func (s *Store) Unlock(ctx context.Context, name string) error {
	s.mu.Lock()
	h, ok := s.leases[name]
	delete(s.leases, name)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	h.stop()
	_, err := h.lc.ReleaseLease(ctx, nil)
	return err
}
