// Package samplebuf: a thread-safe buffer type that outputs embed, and a
// flusher that calls a callback on a period; and a buffer type that fills
// itself from a shared database.
package samplebuf

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// Point is one measurement.
type Point struct {
	Name  string
	Value float64
}

// Buffer holds what its callers add until a flush takes it.
type Buffer struct {
	sync.Mutex
	points []Point
	most   int
}

// Add is the write path: the engine hands the process's own points.
func (b *Buffer) Add(ps []Point) {
	b.Lock()
	b.points = append(b.points, ps...)
	b.Unlock()
}

// Take returns the buffered points and starts a new buffer.
func (b *Buffer) Take() []Point {
	b.Lock()
	defer b.Unlock()
	got, n := b.points, len(b.points)
	if n == 0 {
		return nil
	}
	if n > b.most {
		b.most = n
	}
	b.points = make([]Point, 0, (n+b.most)/2)
	return got
}

// Shared buffers points too, but loads them itself from a table every
// replica reads.
type Shared struct {
	mu     sync.Mutex
	db     *sql.DB
	points []Point
}

// Load appends the rows of the shared table.
func (s *Shared) Load(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name, value FROM pending_points`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p Point
		if err := rows.Scan(&p.Name, &p.Value); err != nil {
			return err
		}
		s.mu.Lock()
		s.points = append(s.points, p)
		s.mu.Unlock()
	}
	return rows.Err()
}

// Take returns the loaded points and starts a new buffer.
func (s *Shared) Take() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.points
	s.points = nil
	return got
}

// Flusher calls its callback on every tick until stopped.
type Flusher struct {
	stop chan struct{}
}

// NewFlusher starts the periodic callback.
func NewFlusher(every time.Duration, cb func()) *Flusher {
	f := &Flusher{stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				cb()
			case <-f.stop:
				cb()
				return
			}
		}
	}()
	return f
}

// Stop ends the callbacks.
func (f *Flusher) Stop() { close(f.stop) }
