// Package ownhandles: periodic flushes of the handles a process opened
// itself (a mount's open files, kept in a map or a slice field that the
// exported Open path fills one fresh handle at a time), per-replica by
// design, and their twins whose collection is filled from a shared
// listing, by the flush itself, with values it did not make, or by a call
// it is handed to, or whose flush writes more than the handles.
package ownhandles

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net/http"
	"sync"
	"time"
)

type record struct {
	Path   string   `json:"path"`
	Blocks []string `json:"blocks"`
}

func post(ctx context.Context, url string, body []byte) error {
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

// list reads the names under a directory of the shared metadata server.
func list(ctx context.Context, url string) ([]record, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []record
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out, err
}

// handle is one file this mount has open.
type handle struct {
	mu     sync.Mutex
	id     uint64
	rec    record
	dirty  bool
	closed bool
}

func newHandle(id uint64, rec record) *handle {
	h := &handle{id: id, rec: rec}
	h.rec.Blocks = append([]string(nil), rec.Blocks...)
	return h
}

func (h *handle) encode() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(h.rec)
	return b
}

type table struct {
	sync.RWMutex
	byID map[uint64]*handle
}

// Mount keeps the files its callers opened.
type Mount struct {
	url   string
	files *table
	next  uint64
}

func NewMount(url string) *Mount {
	return &Mount{url: url, files: &table{byID: make(map[uint64]*handle)}}
}

// Open is the request path: the record is looked up on the shared server,
// but the handle is this mount's own, made once per open.
func (m *Mount) Open(ctx context.Context, path string) (uint64, error) {
	recs, err := list(ctx, m.url+"/lookup?path="+path)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	return m.files.attach(m, recs[0]), nil
}

func (t *table) attach(m *Mount, rec record) uint64 {
	t.Lock()
	defer t.Unlock()
	m.next++
	t.byID[m.next] = newHandle(m.next, rec)
	return m.next
}

// Close is the request path too.
func (m *Mount) Close(id uint64) {
	m.files.Lock()
	defer m.files.Unlock()
	delete(m.files.byID, id)
}

func (m *Mount) flushOne(h *handle) error {
	return post(context.Background(), m.url+"/entry", h.encode())
}

func (m *Mount) flushAll() {
	var dirty []*handle
	m.files.RLock()
	for _, h := range m.files.byID {
		if h.dirty {
			dirty = append(dirty, h)
		}
	}
	m.files.RUnlock()
	log.Printf("flushing %d open files", len(dirty))
	var wg sync.WaitGroup
	for _, h := range dirty {
		wg.Add(1)
		go func(fh *handle) {
			defer wg.Done()
			if err := m.flushOne(fh); err != nil {
				log.Printf("flush %d: %v", fh.id, err)
			}
		}(h)
	}
	wg.Wait()
}

// Negative: each mount flushes the files it has open itself.
func (m *Mount) loopFlush(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		m.flushAll()
	}
}

// Session is one client connection a server accepted.
type Session struct {
	user string
	seen time.Time
}

// Server keeps its sessions in a slice.
type Server struct {
	url      string
	mu       sync.Mutex
	sessions []*Session
}

// Accept is the request path.
func (s *Server) Accept(user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = append(s.sessions, &Session{user: user, seen: time.Now()})
}

func (s *Server) report(ctx context.Context, user string, at time.Time) error {
	return post(ctx, s.url+"/seen?user="+user, []byte(at.Format(time.RFC3339)))
}

// Negative: each server reports the sessions it accepted.
func (s *Server) loopReport(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for range t.C {
		s.reportAll(ctx)
	}
}

func (s *Server) reportAll(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		s.report(ctx, ss.user, ss.seen)
	}
}

// Mirror: the same flush, but Sync stores a handle for every name of a
// shared directory listing: every replica holds, and flushes, them all.
type Mirror struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

// Sync lists the shared directory.
func (m *Mirror) Sync(ctx context.Context) error {
	recs, err := list(ctx, m.url+"/list?dir=/shared")
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, rec := range recs {
		m.files[rec.Path] = newHandle(uint64(i), rec)
	}
	return nil
}

func (m *Mirror) flushOne(h *handle) error {
	return post(context.Background(), m.url+"/entry", h.encode())
}

func (m *Mirror) flushAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range m.files {
		m.flushOne(h)
	}
}

// Positive: the collection is a shared listing.
func (m *Mirror) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		m.flushAll()
	}
}

// Puller: the flush itself fills its collection from the shared server
// (one record a tick, outside any loop).
type Puller struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

func (p *Puller) pull(ctx context.Context) {
	recs, err := list(ctx, p.url+"/next")
	if err != nil || len(recs) == 0 {
		return
	}
	p.mu.Lock()
	p.files[recs[0].Path] = newHandle(0, recs[0])
	p.mu.Unlock()
}

// Track is exported, as if the request path filled the collection.
func (p *Puller) Track(rec record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[rec.Path] = &handle{rec: rec}
}

func (p *Puller) flushOne(h *handle) error {
	return post(context.Background(), p.url+"/entry", h.encode())
}

func (p *Puller) flushAll(ctx context.Context) {
	p.pull(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.files {
		p.flushOne(h)
	}
}

// Positive: the job pulls what it flushes (an exported loop paced by a
// sleep: no caller iterates over anything).
func (p *Puller) Run(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1m0s: it sends HTTP POST`
		time.Sleep(time.Minute)
		p.flushAll(ctx)
	}
}

var (
	_ = NewMount
	_ = (*Mount).loopFlush
	_ = (*Server).loopReport
	_ = (*Mirror).loopFlush
	_ = (*Cache).loopFlush
	_ = (*Restorer).loopFlush
	_ = (*Spiller).loopFlush
	_ = (*Announcer).loopFlush
	_ = (*Watcher).loopFlush
	_ = (*Relay).loopFlush
	_ = (*Importer).loopFlush
	_ = (*Roster).loopReport
)
