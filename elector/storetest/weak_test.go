package storetest_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

// weakStore is a store written from scratch so that each variant can weaken
// one semantic rule the way a real backend might get it wrong, where a
// wrapper around memstore cannot (reviving an expired term, say). With no
// variant it is correct, which TestWeakStoreControl checks.
type weakStore struct {
	variant string
	mu      sync.Mutex
	leases  map[string]*weakLease
	issued  map[string]uint64 // last token issued per name
	saved   map[string]uint64 // counters as a restart restores them
}

type weakLease struct {
	term     elector.Term
	expires  time.Time
	released bool
}

func newWeakStore(variant string) *weakStore {
	return &weakStore{variant: variant, leases: map[string]*weakLease{}, issued: map[string]uint64{}, saved: map[string]uint64{}}
}

func (w *weakStore) live(l *weakLease, now time.Time) bool {
	return l != nil && !l.released && now.Before(l.expires)
}

// restart loses every lease (a volatile server) and restores the counters.
func (w *weakStore) restart() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.leases = map[string]*weakLease{}
	w.issued = maps.Clone(w.saved)
}

func (w *weakStore) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	if err := ctx.Err(); err != nil {
		return elector.Term{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	l := w.leases[name]
	if w.live(l, now) && l.term.Holder != holder {
		return elector.Term{}, fmt.Errorf("weakStore: %w", elector.ErrHeld)
	}
	if w.variant == "acquire-reuses-expired" && l != nil && !l.released && !w.live(l, now) && l.term.Holder == holder {
		// "The same holder again": hand back the expired term, token and all.
		l.expires = now.Add(ttl)
		return l.term, nil
	}
	w.issued[name]++
	if w.variant != "stale-snapshot" {
		w.saved[name] = w.issued[name]
	}
	t := elector.Term{Name: name, Holder: holder, Token: w.issued[name]}
	w.leases[name] = &weakLease{term: t, expires: now.Add(ttl)}
	return t, nil
}

func (w *weakStore) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	l := w.leases[t.Name]
	if l == nil || l.term != t || l.released {
		return fmt.Errorf("weakStore: %w", elector.ErrLost)
	}
	if !w.live(l, now) && w.variant != "renew-resurrects" {
		return fmt.Errorf("weakStore: %w", elector.ErrLost)
	}
	switch w.variant {
	case "renew-shortens":
		l.expires = now.Add(ttl / 3)
	case "renew-keeps-expiry": // a renew that only checks, never extends
	case "renew-overextends":
		l.expires = now.Add(2 * ttl)
	default:
		l.expires = now.Add(ttl)
	}
	return nil
}

func (w *weakStore) Release(ctx context.Context, t elector.Term) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.leases[t.Name]
	match := l != nil && l.term == t
	switch w.variant {
	case "release-holder-only":
		match = l != nil && l.term.Holder == t.Holder
	case "release-token-only":
		match = l != nil && l.term.Token == t.Token
	}
	if !match || l.released {
		return fmt.Errorf("weakStore: %w", elector.ErrLost)
	}
	if !w.live(l, time.Now()) {
		return fmt.Errorf("weakStore: %w", elector.ErrLost)
	}
	l.released = true
	w.saved[t.Name] = w.issued[t.Name] // every variant persists on release
	return nil
}

func (w *weakStore) Read(ctx context.Context, name string) (elector.Record, error) {
	if err := ctx.Err(); err != nil {
		return elector.Record{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.leases[name]
	if l == nil {
		return elector.Record{}, nil
	}
	now := time.Now()
	if !w.live(l, now) {
		return elector.Record{Term: l.term}, nil
	}
	return elector.Record{Term: l.term, Held: true, Remaining: l.expires.Sub(now)}, nil
}

// TestWeakStoreControl: the weak store without a variant passes the suite,
// so each variant's failure is its weakening's doing.
func TestWeakStoreControl(t *testing.T) {
	w := newWeakStore("")
	storetest.Run(t, func(t *testing.T) elector.Store { return w })
	storetest.RunRestart(t, func(t *testing.T) elector.Store { return w }, func(*testing.T) { w.restart() })
}
