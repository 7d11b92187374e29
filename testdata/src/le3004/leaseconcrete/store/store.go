// Package store keeps entries and their chunks for the handlers: some of
// its calls run as long as their input, some are bounded.
package store

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"le3004/leaseconcrete/blob"
)

type Store struct {
	c       *http.Client
	url     string
	filters []string
	onSave  func(string)
}

// SaveAll uploads every chunk (through saveChunks: the package's own
// calls are followed).
func (s *Store) SaveAll(ctx context.Context, chunks [][]byte) error {
	if len(chunks) == 0 {
		return nil
	}
	return s.saveChunks(ctx, chunks)
}

func (s *Store) saveChunks(ctx context.Context, chunks [][]byte) error {
	for _, b := range chunks {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.url, bytes.NewReader(b))
		if err != nil {
			return err
		}
		resp, err := s.c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}

func (s *Store) put(ctx context.Context, b []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Manifest writes the chunks through package blob: unbounded by blob's
// fact.
func (s *Store) Manifest(ctx context.Context, chunks [][]byte) error {
	return blob.PutEach(ctx, s.c, s.url, chunks)
}

// SaveOne writes one chunk: bounded (SaveAll is its twin).
func (s *Store) SaveOne(ctx context.Context, b []byte) error {
	return s.put(ctx, b)
}

// SaveCopies writes three copies: a constant count, bounded (SaveAll is
// its twin).
func (s *Store) SaveCopies(ctx context.Context, b []byte) error {
	for i := 0; i < 3; i++ {
		resp, err := s.c.Post(s.url, "application/octet-stream", bytes.NewReader(b))
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}

// SaveQuick gives the whole upload a second: bounded (SaveAll is its
// twin).
func (s *Store) SaveQuick(ctx context.Context, chunks [][]byte) error {
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return s.saveChunks(qctx, chunks)
}

// Settle waits a constant 100ms: bounded (SettleFor is its twin).
func (s *Store) Settle() {
	time.Sleep(100 * time.Millisecond)
}

// SettleFor waits as long as the caller says.
func (s *Store) SettleFor(d time.Duration) {
	time.Sleep(d)
}

// Allowed matches name against the store's filters with a helper of the
// package: a loop of the module's own code that is itself bounded counts
// as nothing (SaveAll, whose loop sends requests, is its twin).
func (s *Store) Allowed(name string) bool {
	for _, f := range s.filters {
		if s.match(f, name) {
			return true
		}
	}
	return false
}

func (s *Store) match(filter, name string) bool {
	return len(filter) <= len(name) && name[:len(filter)] == filter
}

// now is the package's clock, a hook for its tests.
var now = time.Now

// Stamp reads the package's clock: no callback of the caller (Notify is
// its twin).
func (s *Store) Stamp() time.Time {
	return now()
}

// Notify runs the callback the store was built with.
func (s *Store) Notify(key string) {
	s.onSave(key)
}
