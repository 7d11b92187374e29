// Package lease: heartbeats that renew a lease this replica holds, through
// a store of another package whose write is keyed by its parameters.
package lease

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"time"

	"le1001/lease/leasestore"
)

// Locker holds a lease under the identity of this process.
type Locker struct {
	db     *sql.DB
	lockID string
	holder string
}

func NewLocker(db *sql.DB, lockID string) *Locker {
	host, _ := os.Hostname()
	return &Locker{db: db, lockID: lockID, holder: fmt.Sprintf("%s-%d-%d", host, os.Getpid(), rand.Int63())}
}

// Negative: the heartbeat renews this replica's own lease; the store keys
// its UPDATE by the holder, which is the process's identity.
func (l *Locker) heartbeat(ctx context.Context) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for range t.C {
		if err := leasestore.Renew(ctx, l.db, l.lockID, l.holder, 30*time.Second); err != nil {
			return
		}
	}
}

// Negative: the same through two helpers of the store.
func (l *Locker) touchLoop(ctx context.Context) {
	for range time.Tick(10 * time.Second) {
		leasestore.Touch(ctx, l.db, l.lockID, l.holder)
	}
}

// Positive twin: the holder is a constant; every replica renews the same
// row, as often as there are replicas.
func (l *Locker) heartbeatShared(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it increments table leases \(via leasestore.Renew\); guarded by nothing`
		leasestore.Renew(ctx, l.db, l.lockID, "migrator", 30*time.Second)
	}
}

// Positive twin: the holder parameter is filled with a value that is not
// the instance's identity (the lock's own name).
func (l *Locker) heartbeatByLock(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it increments table leases \(via leasestore.Renew\); guarded by nothing`
		leasestore.Touch(ctx, l.db, l.lockID, l.lockID)
	}
}

// Positive twin: the identity goes to a parameter that is no key of the
// write (a note); the write counts every replica's renewal of one row.
func (l *Locker) bumpLoop(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it increments table leases \(via leasestore.Bump\); guarded by nothing`
		leasestore.Bump(ctx, l.db, l.lockID, l.holder)
	}
}

// Leases is how a locker sees its store: an interface the store of
// another package implements.
type Leases interface {
	Renew(ctx context.Context, lock, holder string) error
}

var _ Leases = (*leasestore.Store)(nil)

// Negative: the renewal through the interface, keyed by the holder.
func (l *Locker) heartbeatVia(ctx context.Context, s Leases) {
	for range time.Tick(10 * time.Second) {
		s.Renew(ctx, l.lockID, l.holder)
	}
}

// Positive twin: through the interface, keyed by a constant holder.
func (l *Locker) heartbeatViaShared(ctx context.Context, s Leases) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it increments table leases \(via leasestore.Renew\); guarded by nothing`
		s.Renew(ctx, l.lockID, "migrator")
	}
}

// Positive twin: the identity fills a parameter the write records (SET),
// not one that picks the row (WHERE); every replica counts on one row.
func (l *Locker) stampLoop(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it increments table leases \(via leasestore.Stamp\); guarded by nothing`
		leasestore.Stamp(ctx, l.db, l.lockID, l.holder)
	}
}
