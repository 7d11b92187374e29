package elector

import (
	"context"
	"errors"
	"time"
)

// Term is one grant of a lease: the tenure of one holder from a successful
// Acquire until it is released, lost or expires. Every store operation after
// Acquire is scoped to a Term, so a holder whose term has ended can never renew
// or release the term of whoever came next.
type Term struct {
	// Name is the lease name.
	Name string
	// Holder is the owner identity the term was granted to.
	Holder string
	// Token is the fencing token of this term: issued by the store, strictly
	// increasing per lease name, never reused, also across store restarts.
	Token uint64
}

// Record is what a store reports about a lease without competing for it.
type Record struct {
	// Term is the current or most recent term; its zero value means the
	// lease has never been granted.
	Term
	// Held reports whether the term is live by the store's clock.
	Held bool
	// Remaining is how long the store will still consider the term live,
	// judged by the store's clock when it answered; zero when not held.
	Remaining time.Duration
}

// Store is the small, term-scoped interface every backend implements. A store
// judges expiry by its own clock (the database's now(), the etcd lease, the
// Redis TTL), never by the candidate's.
//
// Rules every implementation follows (the conformance suite in
// elector/storetest checks them):
//
//   - Acquire grants the lease when it is free, expired, or held by the same
//     holder (a reclaim after a restart); every grant carries a new token,
//     strictly greater than any token issued before for that name. When another
//     holder's term is live it returns an error wrapping ErrHeld.
//   - A store may round ttl up (whole seconds, say) but never down: the
//     candidate computes its deadline from the ttl it asked for.
//   - Renew extends a live term to ttl from now; when the term is no longer
//     the current live term it returns an error wrapping ErrLost.
//   - Release ends the term at once if it is still current, so a standby can
//     acquire without waiting for expiry; otherwise it returns an error
//     wrapping ErrLost and changes nothing.
//   - Read never changes anything.
//
// A store whose backend grants only a range of lease durations also has a
// method LeaseBounds() (min, max time.Duration), max 0 meaning no limit;
// New then rejects a Timing whose LeaseDuration exceeds max. It may round a
// shorter duration up to min, as long as it still ends the term when the
// requested duration passes; it never rounds down.
type Store interface {
	Acquire(ctx context.Context, name, holder string, ttl time.Duration) (Term, error)
	Renew(ctx context.Context, t Term, ttl time.Duration) error
	Release(ctx context.Context, t Term) error
	Read(ctx context.Context, name string) (Record, error)
}

// Watcher is implemented by stores that can wake standbys when a lease is
// released or changes hands (etcd watch, Postgres LISTEN/NOTIFY, Redis
// pub/sub). The channel receives a value, without blocking the store, after
// any change of the lease named name, and is closed when ctx ends or the watch
// breaks; a caller then falls back to polling. Wakeups are hints: a
// candidate always confirms with Acquire.
type Watcher interface {
	Watch(ctx context.Context, name string) (<-chan struct{}, error)
}

var (
	// ErrHeld means another holder's term is live.
	ErrHeld = errors.New("elector: lease held by another holder")
	// ErrLost means the term is no longer the current live term of the lease.
	ErrLost = errors.New("elector: lease term lost")
)
