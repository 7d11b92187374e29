// Package handler serves appends under the lock client's leases.
package handler

import (
	"context"
	"errors"
	"log"
	"net/http"
	"time"

	"le3004/leaseconcrete/lockclient"
)

var errBusy = errors.New("key is busy")

type Server struct {
	locks  *lockclient.Client
	client *http.Client
	work   func(ctx context.Context) error
}

// Append holds the short lease around a loop of uploads.
func (s *Server) Append(ctx context.Context, key string, urls []string) error {
	l := s.locks.Hold(key) // want `s.locks.Hold takes the lockclient.Lease lease l \(through Hold\) with a TTL of 5s fixed inside Hold and holds it around work of unbounded duration \(a loop over urls calling s.client.Get, line \d+\) without renewing it \(no call of its Renew, and Hold starts no renewal\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	for _, u := range urls {
		resp, err := s.client.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}

// AppendUntil holds the lease whose expiry is fixed at 3 s.
func (s *Server) AppendUntil(ctx context.Context, key string) error {
	var l = s.locks.HoldUntil(key) // want `s.locks.HoldUntil takes the lockclient.Lease lease l \(through HoldUntil\) with a TTL of 3s fixed inside HoldUntil`
	if l == nil {
		return errBusy
	}
	defer l.Stop()
	return s.work(ctx)
}

// AppendConfigured takes the lease for the client's configured TTL: not
// judged.
func (s *Server) AppendConfigured(ctx context.Context, key string) error {
	l := s.locks.HoldConfigured(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.work(ctx)
}

// AppendRenewed renews the lease from a ticker while working: silent.
func (s *Server) AppendRenewed(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if l.Renew(5*time.Second) != nil {
					cancel()
				}
			}
		}
	}()
	return s.work(ctx)
}

// AppendTicking is AppendRenewed's twin: the ticker renews nothing.
func (s *Server) AppendTicking(ctx context.Context, key string) error {
	l := s.locks.Hold(key) // want `s.locks.Hold takes the lockclient.Lease lease l \(through Hold\) with a TTL of 5s fixed inside Hold and holds it around work of unbounded duration \(the callback s.work`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				log.Printf("appending %s", key)
			}
		}
	}()
	return s.work(ctx)
}

// AppendKept takes the lease the client renews in the background: silent.
func (s *Server) AppendKept(ctx context.Context, key string) error {
	l := s.locks.HoldKept(key)
	if l == nil {
		return errBusy
	}
	defer l.Stop()
	return s.work(ctx)
}

// AppendWatched is AppendKept's twin: the client's goroutine renews
// nothing.
func (s *Server) AppendWatched(ctx context.Context, key string) error {
	l := s.locks.HoldWatched(key) // want `s.locks.HoldWatched takes the lockclient.Lease lease l \(through HoldWatched\) with a TTL of 5s fixed inside HoldWatched`
	if l == nil {
		return errBusy
	}
	defer l.Stop()
	return s.work(ctx)
}

// AppendWaiting waits 2 s for the key; the duration is no TTL: silent
// (Append is its twin).
func (s *Server) AppendWaiting(ctx context.Context, key string) error {
	l := s.locks.HoldWaiting(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.work(ctx)
}

// AppendReserved holds a ticket that cannot be renewed: silent (Append
// is its twin).
func (s *Server) AppendReserved(ctx context.Context, key string) error {
	t := s.locks.Reserve(key)
	if t == nil {
		return errBusy
	}
	defer t.Cancel()
	return s.work(ctx)
}

// AppendBounded gives the work a deadline shorter than the TTL: silent.
func (s *Server) AppendBounded(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return s.work(cctx)
}

// AppendLate is AppendBounded's twin: the deadline outlasts the TTL.
func (s *Server) AppendLate(ctx context.Context, key string) error {
	l := s.locks.Hold(key) // want `s.locks.Hold takes the lockclient.Lease lease l \(through Hold\) with a TTL of 5s fixed inside Hold and holds it around work of unbounded duration \(the callback s.work`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.work(cctx)
}

// AppendOne saves one record under the lease: nothing the rule counts as
// unbounded, silent (Append is its twin).
func (s *Server) AppendOne(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	resp, err := s.client.Get("http://store/" + key)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// AppendReleasedFirst gives the lease back before the work: silent.
func (s *Server) AppendReleasedFirst(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	if err := l.Release(); err != nil {
		return err
	}
	return s.work(ctx)
}

// AppendPeeked works under a status read, no lease: silent.
func (s *Server) AppendPeeked(ctx context.Context, key string) error {
	l := s.locks.Peek(key)
	if l == nil {
		return errBusy
	}
	return s.work(ctx)
}

// AppendPaced holds a lease of the configured TTL: not judged.
func (s *Server) AppendPaced(ctx context.Context, key string) error {
	l := s.locks.HoldPaced(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.work(ctx)
}

// AppendDirect holds the lease the constructor asked for itself.
func (s *Server) AppendDirect(ctx context.Context, key string) error {
	l := s.locks.HoldDirect(key) // want `s.locks.HoldDirect takes the lockclient.Lease lease l \(through HoldDirect\) with a TTL of 5s fixed inside HoldDirect`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.work(ctx)
}

// AppendDirectWaiting is AppendDirect's negative twin: the constant was
// the wait, silent.
func (s *Server) AppendDirectWaiting(ctx context.Context, key string) error {
	l := s.locks.HoldDirectWaiting(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.work(ctx)
}
