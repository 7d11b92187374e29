package ownhandles

// The twins whose collection is filled by something other than the
// request path, one fresh handle at a time, or whose flush writes more.

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Cache: the handles stored are ones the package did not make: decoded
// from the shared server's answer.
type Cache struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

func (c *Cache) fetch(ctx context.Context, path string) (*handle, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/handle?path="+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var h handle
	err = json.NewDecoder(resp.Body).Decode(&h.rec)
	return &h, err
}

// Load is exported.
func (c *Cache) Load(ctx context.Context, path string) error {
	h, err := c.fetch(ctx, path)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[path] = h
	return nil
}

func (c *Cache) flushOne(h *handle) error {
	return post(context.Background(), c.url+"/entry", h.encode())
}

func (c *Cache) flushAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.files {
		c.flushOne(h)
	}
}

// Positive: the collection holds what a fetch answered.
func (c *Cache) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		c.flushAll()
	}
}

// Restorer: the map is handed to a helper that fills it from the shared
// server.
type Restorer struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

func restore(ctx context.Context, url string, into map[string]*handle) {
	recs, _ := list(ctx, url+"/list?dir=/shared")
	for _, rec := range recs {
		into[rec.Path] = newHandle(0, rec)
	}
}

// Open is the request path, Restore the start-up one.
func (r *Restorer) Open(rec record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[rec.Path] = newHandle(0, rec)
}

func (r *Restorer) Restore(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	restore(ctx, r.url, r.files)
}

func (r *Restorer) flushOne(h *handle) error {
	return post(context.Background(), r.url+"/entry", h.encode())
}

func (r *Restorer) flushAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.files {
		r.flushOne(h)
	}
}

// Positive: a helper fills the collection from a listing.
func (r *Restorer) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		r.flushAll()
	}
}

// Spiller: the handles are own, but each flush also posts the shared
// directory's listing.
type Spiller struct {
	url   string
	mu    sync.Mutex
	files map[uint64]*handle
	next  uint64
}

// Open is the request path.
func (s *Spiller) Open(rec record) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.files[s.next] = newHandle(s.next, rec)
	return s.next
}

func (s *Spiller) flushOne(h *handle, extra []record) error {
	b, _ := json.Marshal(extra)
	return post(context.Background(), s.url+"/entry", append(h.encode(), b...))
}

func (s *Spiller) flushAll(ctx context.Context) {
	recs, _ := list(ctx, s.url+"/list?dir=/shared")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.files {
		s.flushOne(h, recs)
	}
}

// Positive: what is written is more than the handles.
func (s *Spiller) loopFlush(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		s.flushAll(ctx)
	}
}

// Announcer: the handles are own, but the flush also posts each name of
// the shared directory, the call's result dropped (not a log line).
type Announcer struct {
	url   string
	mu    sync.Mutex
	files map[uint64]*handle
	next  uint64
}

// Open is the request path.
func (a *Announcer) Open(rec record) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	a.files[a.next] = newHandle(a.next, rec)
	return a.next
}

func (a *Announcer) flushOne(h *handle) error {
	return post(context.Background(), a.url+"/entry", h.encode())
}

func (a *Announcer) announce(ctx context.Context, path string) error {
	return post(ctx, a.url+"/announce?path="+path, nil)
}

func (a *Announcer) flushAll(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, h := range a.files {
		a.flushOne(h)
	}
	recs, _ := list(ctx, a.url+"/list?dir=/shared")
	for i := range recs {
		a.announce(ctx, recs[i].Path)
	}
}

// Positive: a call of the package handed a listed name is no side call.
func (a *Announcer) loopFlush(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		a.flushAll(ctx)
	}
}

// Poller: the flush stores, itself, the record the shared server hands
// out next, then flushes the collection.
type Poller struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

// Track is exported, as if the request path filled the collection.
func (p *Poller) Track(rec record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[rec.Path] = &handle{rec: rec}
}

func (p *Poller) flushOne(h *handle) error {
	return post(context.Background(), p.url+"/entry", h.encode())
}

func (p *Poller) flushAll(ctx context.Context) {
	recs, err := list(ctx, p.url+"/next")
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && len(recs) > 0 {
		p.files[recs[0].Path] = &handle{rec: recs[0]}
	}
	for _, h := range p.files {
		p.flushOne(h)
	}
}

// Positive: the flush fills what it flushes (an exported loop paced by a
// sleep: no caller iterates over anything).
func (p *Poller) Run(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1m0s: it sends HTTP POST`
		time.Sleep(time.Minute)
		p.flushAll(ctx)
	}
}

// Watcher: the handles are stored by a callback a watch of the shared
// directory calls for every entry; nothing in the package calls it.
type Watcher struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

func (w *Watcher) watch(ctx context.Context, fn func(record)) {
	recs, _ := list(ctx, w.url+"/watch?dir=/shared")
	for _, rec := range recs {
		fn(rec)
	}
}

func (w *Watcher) onEntry(rec record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[rec.Path] = newHandle(0, rec)
}

// Start is the start-up path.
func (w *Watcher) Start(ctx context.Context) { w.watch(ctx, w.onEntry) }

func (w *Watcher) flushOne(h *handle) error {
	return post(context.Background(), w.url+"/entry", h.encode())
}

func (w *Watcher) flushAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, h := range w.files {
		w.flushOne(h)
	}
}

// Positive: the filler is a callback of the shared watch.
func (w *Watcher) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		w.flushAll()
	}
}

// Relay: the collection holds values of another package (requests), made
// fresh on an exported path: not shown handles of this process (a scope
// limit: what another package's value carries is not read here).
type Relay struct {
	mu   sync.Mutex
	reqs map[string]*http.Request
}

// Queue is exported.
func (r *Relay) Queue(key, target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs[key] = &http.Request{Method: http.MethodPost, Host: target}
}

func (r *Relay) sendOne(req *http.Request) error {
	return post(context.Background(), "http://"+req.Host+"/relay", nil)
}

func (r *Relay) flushAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, req := range r.reqs {
		r.sendOne(req)
	}
}

// Positive: the items are not this package's handles.
func (r *Relay) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		r.flushAll()
	}
}

// Importer: the filler stores one fresh handle, but its caller calls it
// for every name of a shared listing.
type Importer struct {
	url   string
	mu    sync.Mutex
	files map[string]*handle
}

func (im *Importer) add(rec record) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.files[rec.Path] = newHandle(0, rec)
}

// Import lists the shared directory.
func (im *Importer) Import(ctx context.Context) {
	recs, _ := list(ctx, im.url+"/list?dir=/shared")
	for _, rec := range recs {
		im.add(rec)
	}
}

func (im *Importer) flushOne(h *handle) error {
	return post(context.Background(), im.url+"/entry", h.encode())
}

func (im *Importer) flushAll() {
	im.mu.Lock()
	defer im.mu.Unlock()
	for _, h := range im.files {
		im.flushOne(h)
	}
}

// Positive: the filler's caller iterates over a listing.
func (im *Importer) loopFlush() {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		im.flushAll()
	}
}

// Roster: sessions are appended on Accept, but Load replaces the slice
// with one built from the shared server's listing.
type Roster struct {
	url      string
	mu       sync.Mutex
	sessions []*Session
}

// Accept is the request path.
func (r *Roster) Accept(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions = append(r.sessions, &Session{user: user, seen: time.Now()})
}

func (r *Roster) fetchAll(ctx context.Context) []*Session {
	recs, _ := list(ctx, r.url+"/sessions")
	out := make([]*Session, 0, len(recs))
	for _, rec := range recs {
		out = append(out, &Session{user: rec.Path})
	}
	return out
}

// Load is the start-up path.
func (r *Roster) Load(ctx context.Context) {
	all := r.fetchAll(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions = all
}

func (r *Roster) report(ctx context.Context, user string, at time.Time) error {
	return post(ctx, r.url+"/seen?user="+user, []byte(at.Format(time.RFC3339)))
}

func (r *Roster) reportAll(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ss := range r.sessions {
		r.report(ctx, ss.user, ss.seen)
	}
}

// Positive: the slice may be a listing.
func (r *Roster) loopReport(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	defer t.Stop()
	for range t.C {
		r.reportAll(ctx)
	}
}
