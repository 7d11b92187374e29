// Package ownbuffer: periodic flushes of a buffer a field holds, filled by
// the package's exported write path (per-replica by design), and their
// twins whose buffer carries what a store or a query answered.
package ownbuffer

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Logger is the process's log sink.
type Logger interface {
	Log(keyvals ...any) error
}

type entry struct {
	at   time.Time
	line string
}

func encode(es []entry) []byte {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.at.Format(time.RFC3339) + " " + e.line + "\n")
	}
	return []byte(b.String())
}

func send(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Pusher buffers the lines its callers write and pushes them on a timer.
type Pusher struct {
	url     string
	logger  Logger
	mu      sync.Mutex
	entries []entry
}

// Write is the request path: the process's own lines.
func (p *Pusher) Write(at time.Time, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entries = append(p.entries, entry{at: at, line: line})
}

func (p *Pusher) drain() []entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	es := p.entries
	p.entries = make([]entry, 0, len(es))
	return es
}

func (p *Pusher) payload() []byte {
	es := p.drain()
	p.logger.Log("msg", "built payload", "entries", len(es))
	return encode(es)
}

func (p *Pusher) push(ctx context.Context, body []byte) error { return send(ctx, p.url, body) }

// Negative: the timer pushes what this replica's callers wrote; each
// replica sends its own lines.
func (p *Pusher) run(ctx context.Context, every time.Duration) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := time.NewTimer(every)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			t.Reset(every)
			body := p.payload()
			if len(body) == 0 {
				continue
			}
			p.push(ctx, body)
		}
	}
}

// Digest buffers lines too, but the package itself writes rows it reads
// from the shared database into the buffer.
type Digest struct {
	url     string
	db      *sql.DB
	mu      sync.Mutex
	entries []entry
}

// Add is exported, and called below with rows of the database.
func (d *Digest) Add(at time.Time, line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.entries = append(d.entries, entry{at: at, line: line})
}

func (d *Digest) collect(ctx context.Context) {
	rows, err := d.db.QueryContext(ctx, `SELECT line FROM digest`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if rows.Scan(&line) == nil {
			d.Add(time.Now(), line)
		}
	}
}

func (d *Digest) payload() []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	es := d.entries
	d.entries = nil
	return encode(es)
}

func (d *Digest) push(ctx context.Context, body []byte) error { return send(ctx, d.url, body) }

// Positive twin (the callers of the appender inside the package): every
// replica reads the same rows into its buffer and mails the same digest.
func (d *Digest) run(ctx context.Context) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it sends HTTP POST`
	for range t.C {
		d.collect(ctx)
		d.push(ctx, d.payload())
	}
}

// Source is a shared store of lines.
type Source interface {
	Lines(ctx context.Context) ([]entry, error)
	Fill(ctx context.Context, into *[]entry) error
}

// Relay appends what the shared source answers to its buffer.
type Relay struct {
	url     string
	src     Source
	entries []entry
}

func (r *Relay) refill(ctx context.Context) {
	es, err := r.src.Lines(ctx)
	if err != nil {
		return
	}
	r.entries = append(r.entries, es...)
}

func (r *Relay) payload() []byte {
	es := r.entries
	r.entries = nil
	return encode(es)
}

func (r *Relay) push(ctx context.Context, body []byte) error { return send(ctx, r.url, body) }

// Positive twin (what is appended): the buffer holds the source's answer.
func (r *Relay) run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for range t.C {
		r.refill(ctx)
		r.push(ctx, r.payload())
	}
}

// Mirror replaces its buffer with the source's answer.
type Mirror struct {
	url     string
	src     Source
	entries []entry
}

// Write is the request path.
func (m *Mirror) Write(line string) { m.entries = append(m.entries, entry{line: line}) }

func (m *Mirror) reload(ctx context.Context) {
	if es, err := m.src.Lines(ctx); err == nil {
		m.entries = es
	}
}

func (m *Mirror) payload() []byte {
	es := m.entries
	m.entries = nil
	return encode(es)
}

func (m *Mirror) push(ctx context.Context, body []byte) error { return send(ctx, m.url, body) }

// Positive twin (every store is fresh or an append): the buffer is
// replaced by the source's answer.
func (m *Mirror) run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for range t.C {
		m.reload(ctx)
		m.push(ctx, m.payload())
	}
}

// Snapshot drains its own buffer but also has the source fill a local
// slice it sends.
type Snapshot struct {
	url     string
	src     Source
	entries []entry
}

// Write is the request path.
func (s *Snapshot) Write(line string) { s.entries = append(s.entries, entry{line: line}) }

func (s *Snapshot) payload(ctx context.Context) []byte {
	es := s.entries
	s.entries = nil
	var shared []entry
	s.src.Fill(ctx, &shared)
	return encode(append(es, shared...))
}

func (s *Snapshot) push(ctx context.Context, body []byte) error { return send(ctx, s.url, body) }

// Positive twin (a call handed an address is no side call): the payload
// carries what the source wrote into the local slice.
func (s *Snapshot) run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for range t.C {
		s.push(ctx, s.payload(ctx))
	}
}

// Start runs the loops.
func Start(ctx context.Context, p *Pusher, d *Digest, r *Relay, m *Mirror, s *Snapshot) {
	go p.run(ctx, time.Second)
	go d.run(ctx)
	go r.run(ctx)
	go m.run(ctx)
	go s.run(ctx)
}
