package handler

import (
	"context"
	"log"
	"net/http"
	"time"

	"le3004/leaseconcrete/lockclient"
	"le3004/leaseconcrete/store"
	"othermod.example/chunks/put"
)

// Stored appends through the entry store of another package of the
// module: the work under the lease is that package's.
type Stored struct {
	Server
	store *store.Store
	hc    *http.Client
}

// AppendStored holds the 5 s lease around an upload of every chunk.
func (s *Stored) AppendStored(ctx context.Context, key string, chunks [][]byte) error {
	l := s.locks.Hold(key) // want `s.locks.Hold takes the lockclient.Lease lease l \(through Hold\) with a TTL of 5s fixed inside Hold and holds it around work of unbounded duration \(a call of s.store.SaveAll, which runs a call of s.saveChunks, which runs a loop over chunks calling http.NewRequestWithContext \(in store.Store.saveChunks\), line \d+\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.store.SaveAll(ctx, chunks)
}

// AppendManifest: the store's call into package blob loops.
func (s *Stored) AppendManifest(ctx context.Context, key string, chunks [][]byte) error {
	l := s.locks.Hold(key) // want `holds it around work of unbounded duration \(a call of s.store.Manifest, which runs a call of blob.PutEach, which runs a loop over chunks calling http.NewRequestWithContext \(in blob.PutEach\), line \d+\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.store.Manifest(ctx, chunks)
}

// AppendOne writes one chunk: silent (AppendStored is its twin).
func (s *Stored) AppendOne(ctx context.Context, key string, b []byte) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.store.SaveOne(ctx, b)
}

// AppendCopies writes a constant number of copies: silent.
func (s *Stored) AppendCopies(ctx context.Context, key string, b []byte) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.store.SaveCopies(ctx, b)
}

// AppendQuick: the store bounds the upload with a constant deadline:
// silent.
func (s *Stored) AppendQuick(ctx context.Context, key string, chunks [][]byte) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return s.store.SaveQuick(ctx, chunks)
}

// AppendSettled waits a constant time in the store: silent.
func (s *Stored) AppendSettled(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	s.store.Settle()
	return nil
}

// AppendSettledFor is AppendSettled's twin: the caller's duration.
func (s *Stored) AppendSettledFor(ctx context.Context, key string, d time.Duration) error {
	l := s.locks.Hold(key) // want `holds it around work of unbounded duration \(a call of s.store.SettleFor, which runs time.Sleep\(d\) \(in store.Store.SettleFor\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	s.store.SettleFor(d)
	return nil
}

// AppendElsewhere uploads through another module's package: its facts
// are not consulted, silent (AppendManifest, the same loop in this
// module, is its twin).
func (s *Stored) AppendElsewhere(ctx context.Context, key string, chunks [][]byte) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	return put.PutAll(ctx, s.hc, "http://volume/", chunks)
}

// AppendAllowed checks the store's filters under the lease: silent
// (AppendStored is its twin).
func (s *Stored) AppendAllowed(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	if !s.store.Allowed(key) {
		return errBusy
	}
	return nil
}

// AppendStamped reads the store's clock: silent.
func (s *Stored) AppendStamped(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	_ = s.store.Stamp()
	return nil
}

// AppendNotified is AppendStamped's twin: the store's callback.
func (s *Stored) AppendNotified(ctx context.Context, key string) error {
	l := s.locks.Hold(key) // want `holds it around work of unbounded duration \(a call of s.store.Notify, which runs the callback s.onSave \(in store.Store.Notify\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	s.store.Notify(key)
	return nil
}

// AppendReleaseLogged releases through a wrapper that runs a callback:
// the release is no work under the lease, silent.
func (s *Stored) AppendReleaseLogged(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.ReleaseLogged(log.Printf)
	return nil
}

// AppendReported is AppendReleaseLogged's twin: the same callback run by
// no lease call.
func (s *Stored) AppendReported(ctx context.Context, key string) error {
	l := s.locks.Hold(key) // want `holds it around work of unbounded duration \(a call of lockclient.Report, which runs the callback logf \(in lockclient.Report\)`
	if l == nil {
		return errBusy
	}
	defer l.Release()
	lockclient.Report(log.Printf, key)
	return nil
}

// AppendDescribed calls a method of the lease handle: the lease's own
// state, silent (AppendReported is its twin).
func (s *Stored) AppendDescribed(ctx context.Context, key string) error {
	l := s.locks.Hold(key)
	if l == nil {
		return errBusy
	}
	defer l.Release()
	l.Describe(log.Printf)
	return nil
}
