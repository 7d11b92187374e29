// Package memserver is the in-process lease server behind elector/memstore,
// with the faults the elector's own tests and simulator inject: an outage
// (SetDown), a restart of a durable server (Restart) and of a volatile one
// (LoseLeases). It is internal so that these hooks are not part of
// memstore's API; memstore.Store forwards the elector.Store and
// elector.Watcher methods to a Server.
//
// Expiry is judged by the server's own clock, which New takes, so a
// simulator can drive it from virtual time. Tokens are strictly increasing
// per lease name and survive Restart and LoseLeases, the way a durable
// counter in a real backend does.
package memserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// Server is an in-memory lease store. The zero value is not usable; call New.
type Server struct {
	now func() time.Time

	mu       sync.Mutex
	leases   map[string]*lease
	tokens   map[string]uint64 // last token issued per name; never reset
	watchers map[string]map[*watcher]struct{}
	down     bool
}

type lease struct {
	term    elector.Term
	expires time.Time
	held    bool // false after Release; the term stays as "most recent"
}

type watcher struct {
	ch     chan struct{}
	closed bool
}

// New returns an empty server that judges expiry by now (time.Now if nil).
func New(now func() time.Time) *Server {
	if now == nil {
		now = time.Now
	}
	return &Server{
		now:      now,
		leases:   make(map[string]*lease),
		tokens:   make(map[string]uint64),
		watchers: make(map[string]map[*watcher]struct{}),
	}
}

// ErrUnavailable is returned by every call while the store is down.
var ErrUnavailable = errors.New("memstore: store unavailable")

// SetDown makes every call fail with ErrUnavailable (down) or succeed again.
// It models an outage of the server, not of one client.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Restart models a restart of a durable server (a logged Postgres table, etcd):
// leases and token counters survive, open watches break (their channels close,
// so watchers fall back to polling and must watch again).
func (s *Server) Restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeWatchersLocked()
}

// LoseLeases models a restart of a server whose leases are volatile (Redis
// without persistence): every lease is forgotten, so a holder that still
// believes it leads is no longer protected by the store and only fencing
// tokens keep its writes out. Token counters survive, as the contract requires.
func (s *Server) LoseLeases() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leases = make(map[string]*lease)
	s.closeWatchersLocked()
}

func (s *Server) closeWatchersLocked() {
	for name, set := range s.watchers {
		for w := range set {
			if !w.closed {
				w.closed = true
				close(w.ch)
			}
		}
		delete(s.watchers, name)
	}
}

// begin checks the context and availability; it runs with s.mu held.
func (s *Server) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.down {
		return ErrUnavailable
	}
	return nil
}

func (s *Server) liveLocked(name string, now time.Time) (*lease, bool) {
	l, ok := s.leases[name]
	if !ok {
		return nil, false
	}
	return l, l.held && now.Before(l.expires)
}

// Acquire implements elector.Store.
func (s *Server) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	if ttl <= 0 {
		return elector.Term{}, fmt.Errorf("memstore: ttl must be positive, got %v", ttl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return elector.Term{}, err
	}
	now := s.now()
	if l, live := s.liveLocked(name, now); live && l.term.Holder != holder {
		return elector.Term{}, fmt.Errorf("%w: %q holds %q with token %d", elector.ErrHeld, l.term.Holder, name, l.term.Token)
	}
	s.tokens[name]++
	t := elector.Term{Name: name, Holder: holder, Token: s.tokens[name]}
	s.leases[name] = &lease{term: t, expires: now.Add(ttl), held: true}
	s.notifyLocked(name)
	return t, nil
}

// Renew implements elector.Store.
func (s *Server) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("memstore: ttl must be positive, got %v", ttl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return err
	}
	now := s.now()
	l, live := s.liveLocked(t.Name, now)
	if !live || l.term != t {
		return fmt.Errorf("%w: renew of %q token %d", elector.ErrLost, t.Name, t.Token)
	}
	l.expires = now.Add(ttl)
	return nil
}

// Release implements elector.Store.
func (s *Server) Release(ctx context.Context, t elector.Term) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return err
	}
	l, live := s.liveLocked(t.Name, s.now())
	if !live || l.term != t {
		return fmt.Errorf("%w: release of %q token %d", elector.ErrLost, t.Name, t.Token)
	}
	l.held = false
	s.notifyLocked(t.Name)
	return nil
}

// Read implements elector.Store.
func (s *Server) Read(ctx context.Context, name string) (elector.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return elector.Record{}, err
	}
	now := s.now()
	l, live := s.liveLocked(name, now)
	if l == nil {
		return elector.Record{}, nil
	}
	rec := elector.Record{Term: l.term, Held: live}
	if live {
		rec.Remaining = l.expires.Sub(now)
	}
	return rec, nil
}

// Watch implements elector.Watcher. The channel gets a value after every
// Acquire or Release of name and is closed when ctx ends or the store restarts.
func (s *Server) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	w := &watcher{ch: make(chan struct{}, 1)}
	if s.watchers[name] == nil {
		s.watchers[name] = make(map[*watcher]struct{})
	}
	s.watchers[name][w] = struct{}{}
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !w.closed {
			w.closed = true
			close(w.ch)
		}
		delete(s.watchers[name], w)
	})
	return w.ch, nil
}

func (s *Server) notifyLocked(name string) {
	for w := range s.watchers[name] {
		select {
		case w.ch <- struct{}{}:
		default: // a wakeup is already pending; wakeups are hints
		}
	}
}

var (
	_ elector.Store   = (*Server)(nil)
	_ elector.Watcher = (*Server)(nil)
)
