// Package azure releases Azure Blob leases: with ReleaseLease (checks the
// lease ID) or with BreakLease (breaks whoever holds the lease now).
package azure

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// runNightly breaks its own lease when done: if its lease expired while
// the job ran and another replica acquired it, the break ends that
// replica's lease.
func runNightly(ctx context.Context, lc *lease.BlobClient, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
		return err
	}
	defer lc.BreakLease(context.Background(), nil) // want `BreakLease releases the blob lease lc that this function acquired \(line \d+\) by breaking it`
	_, err := db.ExecContext(ctx, `INSERT INTO nightly_reports (day) VALUES (current_date)`)
	return err
}

// migrate breaks the container lease at the end of its work path, with a
// zero break period so the next replica need not wait.
func migrate(ctx context.Context, cc *lease.ContainerClient, steps []func(context.Context) error) error {
	_, err := cc.AcquireLease(ctx, 30, nil)
	if err != nil {
		return err
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	zero := int32(0)
	_, err = cc.BreakLease(ctx, &lease.ContainerBreakOptions{BreakPeriod: &zero}) // want `BreakLease releases the container lease cc that this function acquired \(line \d+\) by breaking it`
	return err
}

// BlobMutex is a lock type whose Unlock breaks the lease its Lock took.
type BlobMutex struct {
	lc  *lease.BlobClient
	ttl int32
}

func (m *BlobMutex) Lock(ctx context.Context) error {
	for {
		if _, err := m.lc.AcquireLease(ctx, m.ttl, nil); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (m *BlobMutex) Unlock(ctx context.Context) error {
	_, err := m.lc.BreakLease(ctx, nil) // want `BreakLease releases the blob lease m.lc that \(\*BlobMutex\).Lock acquired \(line \d+\) by breaking it`
	return err
}

// Leader holds a container lease while it leads; Stop gives it up.
type Leader struct {
	cc   *lease.ContainerClient
	stop chan struct{}
}

func (l *Leader) Start(ctx context.Context) error {
	if _, err := l.cc.AcquireLease(ctx, 15, nil); err != nil {
		return err
	}
	go func() {
		for {
			select {
			case <-l.stop:
				return
			case <-time.After(5 * time.Second):
				if _, err := l.cc.RenewLease(ctx, nil); err != nil {
					return
				}
			}
		}
	}()
	return nil
}

func (l *Leader) Stop(ctx context.Context) {
	close(l.stop)
	l.cc.BreakLease(ctx, nil) // want `BreakLease releases the container lease l.cc that \(\*Leader\).Start acquired`
}

// Locks keeps the lease client of each held lock in a map.
type Locks struct {
	mu     sync.Mutex
	leases map[string]*lease.BlobClient
}

func (l *Locks) Lock(ctx context.Context, name string, lc *lease.BlobClient) error {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
		return err
	}
	l.mu.Lock()
	l.leases[name] = lc
	l.mu.Unlock()
	return nil
}

func (l *Locks) Unlock(ctx context.Context, name string) error {
	l.mu.Lock()
	lc, ok := l.leases[name]
	delete(l.leases, name)
	l.mu.Unlock()
	if !ok {
		return nil
	}
	_, err := lc.BreakLease(ctx, nil) // want `BreakLease releases the blob lease lc that \(\*Locks\).Lock acquired`
	return err
}

// --- negatives ---

type staleLocker struct {
	lc *lease.BlobClient
}

// Acquire breaks a lease older than its blob's last write, then acquires
// again: the break is in the acquire's failure branch, under a shadowing
// err of another call.
func (s *staleLocker) Acquire(ctx context.Context, lastWrite func(context.Context) (time.Time, error)) error {
	_, err := s.lc.AcquireLease(ctx, 60, nil)
	if err != nil {
		written, err := lastWrite(ctx)
		if err != nil {
			return err
		}
		if time.Since(written) < 5*time.Minute {
			return errHeld
		}
		if _, err := s.lc.BreakLease(ctx, nil); err != nil {
			return err
		}
		_, err = s.lc.AcquireLease(ctx, 60, nil)
		return err
	}
	return nil
}

func (s *staleLocker) Release(ctx context.Context) error {
	_, err := s.lc.ReleaseLease(ctx, nil)
	return err
}

// released uses ReleaseLease: the service checks the lease ID.
func released(ctx context.Context, lc *lease.BlobClient, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(context.Background(), nil)
	_, err := db.ExecContext(ctx, `INSERT INTO nightly_reports (day) VALUES (current_date)`)
	return err
}

// ForceUnlock is the operator's recovery command: it never acquired the
// lease and breaks it on purpose.
func ForceUnlock(ctx context.Context, lc *lease.BlobClient) error {
	zero := int32(0)
	_, err := lc.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: &zero})
	return err
}

// takeOverStale breaks a lease left by a crashed holder before acquiring:
// the break comes before the acquire.
func takeOverStale(ctx context.Context, lc *lease.BlobClient, stale bool) error {
	if stale {
		zero := int32(0)
		if _, err := lc.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: &zero}); err != nil {
			return err
		}
	}
	_, err := lc.AcquireLease(ctx, 30, nil)
	return err
}

var errHeld = errors.New("lease held by another instance")

// acquireOrBreak breaks the lease only when the acquire failed (someone
// else's stale lease), inside the failure branch.
func acquireOrBreak(ctx context.Context, lc *lease.BlobClient, staleAfter time.Duration, lastSeen time.Time) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		if time.Since(lastSeen) > staleAfter {
			log.Printf("breaking stale lease: %v", err)
			lc.BreakLease(ctx, nil)
		}
		return errHeld
	}
	return nil
}

// acquireElseBreak returns on success; the break below runs only when the
// acquire failed.
func acquireElseBreak(ctx context.Context, lc *lease.BlobClient) error {
	_, err := lc.AcquireLease(ctx, 30, nil)
	if err == nil {
		return nil
	}
	log.Printf("lease busy, breaking it: %v", err)
	if _, err := lc.BreakLease(ctx, nil); err != nil {
		return err
	}
	_, err = lc.AcquireLease(ctx, 30, nil)
	return err
}

// Admin breaks leases for operators; it has no Lock of its own.
type Admin struct{ lc *lease.BlobClient }

func (a *Admin) Release(ctx context.Context) error {
	_, err := a.lc.BreakLease(ctx, nil)
	return err
}

// otherBlob acquires one blob's lease and breaks another's.
func otherBlob(ctx context.Context, mine, theirs *lease.BlobClient) error {
	if _, err := mine.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer mine.ReleaseLease(ctx, nil)
	_, err := theirs.BreakLease(ctx, nil)
	return err
}

// ReleaseStale breaks a lease the caller names (an operator's tool on a
// type that also takes leases): the client is a parameter, not one of the
// type's own leases.
func (l *Locks) ReleaseStale(ctx context.Context, lc *lease.BlobClient) error {
	_, err := lc.BreakLease(ctx, nil)
	return err
}
