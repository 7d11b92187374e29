// Package chanbatch: run loops that append what the process's own
// producers pushed on an input channel to a batch request and post it on
// a flush tick (per-replica by design), and their twins whose batch or
// channel carries shared work.
package chanbatch

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"time"
)

type sample struct {
	name  string
	value string
}

// request is the batch a run loop fills.
type request struct {
	samples []sample
}

func encode(r *request) []byte {
	lines := make([]string, 0, len(r.samples))
	for _, s := range r.samples {
		lines = append(lines, s.name+" "+s.value)
	}
	return []byte(strings.Join(lines, "\n"))
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

// limits is configuration a writer points to.
type limits struct {
	max int
}

// Writer posts the samples this process's producers push.
type Writer struct {
	url    string
	every  time.Duration
	limits *limits
	input  chan sample
	done   chan struct{}
}

// NewWriter makes the writer's own input queue.
func NewWriter(url string) *Writer {
	return &Writer{url: url, every: time.Second, limits: &limits{max: 100}, input: make(chan sample, 1000), done: make(chan struct{})}
}

// Push queues a sample; the process's producers call it.
func (w *Writer) Push(s sample) error {
	select {
	case w.input <- s:
		return nil
	default:
		return errors.New("queue full")
	}
}

func (w *Writer) flush(ctx context.Context, r *request, max int) {
	if len(r.samples) == 0 || max < 0 {
		return
	}
	post(ctx, w.url, encode(r))
	r.samples = r.samples[:0]
}

// Negative: the ticker and the size threshold post the batch of samples
// received on the writer's own queue; each replica posts its own.
func (w *Writer) run(ctx context.Context) {
	r := &request{}
	drain := func() {
		for s := range w.input {
			r.samples = append(r.samples, s)
		}
		w.flush(context.Background(), r, 0)
	}
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			drain()
			return
		case <-tick.C:
			w.flush(ctx, r, 0)
		case s, ok := <-w.input:
			if !ok {
				continue
			}
			r.samples = append(r.samples, s)
			if len(r.samples) >= w.limits.max {
				// a configured size read through a pointer: scalar
				w.flush(ctx, r, w.limits.max)
			}
		}
	}
}

// Queue is a shared queue a consumer library hands out deliveries of.
type Queue interface {
	Deliveries() chan sample
}

// Relay posts what arrives on a channel it did not make.
type Relay struct {
	url   string
	input chan sample
}

// NewRelay takes its input from the shared queue.
func NewRelay(q Queue, url string) *Relay {
	return &Relay{url: url, input: q.Deliveries()}
}

// Push queues a sample.
func (rl *Relay) Push(s sample) { rl.input <- s }

func (rl *Relay) flush(ctx context.Context, r *request) {
	post(ctx, rl.url, encode(r))
	r.samples = nil
}

// Positive twin (the package makes the channel): the channel is the shared
// queue's, so every replica consumes and posts the same deliveries.
func (rl *Relay) run(ctx context.Context) {
	r := &request{}
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			rl.flush(ctx, r)
		case s := <-rl.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Mirror posts the rows a poller of a shared table feeds it.
type Mirror struct {
	url   string
	db    *sql.DB
	input chan sample
}

// NewMirror makes the mirror's queue.
func NewMirror(db *sql.DB, url string) *Mirror {
	return &Mirror{url: url, db: db, input: make(chan sample, 100)}
}

// Push queues a sample.
func (m *Mirror) Push(s sample) { m.input <- s }

// poll feeds the queue with the rows of a table every replica reads.
func (m *Mirror) poll(ctx context.Context) {
	for {
		rows, err := m.db.QueryContext(ctx, `SELECT name, value FROM outbox`)
		if err != nil {
			return
		}
		for rows.Next() {
			var s sample
			if rows.Scan(&s.name, &s.value) != nil {
				continue
			}
			select {
			case m.input <- s:
			case <-ctx.Done():
				rows.Close()
				return
			}
		}
		rows.Close()
		time.Sleep(time.Second)
	}
}

func (m *Mirror) flush(ctx context.Context, r *request) {
	post(ctx, m.url, encode(r))
	r.samples = nil
}

// Positive twin (every send on the channel is own input): a goroutine
// sends rows of a shared table on the queue, so the batch posted is the
// same on every replica.
func (m *Mirror) run(ctx context.Context) {
	go m.poll(ctx)
	r := &request{}
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			m.flush(ctx, r)
		case s := <-m.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Tail posts what a poller of a shared table sends it.
type Tail struct {
	url   string
	db    *sql.DB
	input chan sample
}

// NewTail makes the queue.
func NewTail(db *sql.DB, url string) *Tail {
	return &Tail{url: url, db: db, input: make(chan sample, 100)}
}

// Push queues a sample.
func (t *Tail) Push(s sample) { t.input <- s }

// follow sends the newest row of a shared table on the queue.
func (t *Tail) follow(ctx context.Context) {
	for ctx.Err() == nil {
		var s sample
		if t.db.QueryRowContext(ctx, `SELECT name, value FROM latest`).Scan(&s.name, &s.value) == nil {
			t.input <- s
		}
		time.Sleep(time.Second)
	}
}

func (t *Tail) flush(ctx context.Context, r *request) {
	post(ctx, t.url, encode(r))
	r.samples = nil
}

// Positive twin (every send on the channel is own input, a plain send):
// the poller's rows reach the batch.
func (t *Tail) run(ctx context.Context) {
	go t.follow(ctx)
	r := &request{}
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			t.flush(ctx, r)
		case s := <-t.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Backfill posts its batch after a helper topped it up from a table.
type Backfill struct {
	url   string
	db    *sql.DB
	input chan sample
}

// NewBackfill makes the queue.
func NewBackfill(db *sql.DB, url string) *Backfill {
	return &Backfill{url: url, db: db, input: make(chan sample, 100)}
}

// Push queues a sample.
func (b *Backfill) Push(s sample) { b.input <- s }

// topUp appends the rows of a shared table to the batch.
func (b *Backfill) topUp(ctx context.Context, r *request) {
	rows, err := b.db.QueryContext(ctx, `SELECT name, value FROM pending`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var s sample
		if rows.Scan(&s.name, &s.value) == nil {
			r.samples = append(r.samples, s)
		}
	}
}

func (b *Backfill) flush(ctx context.Context, r *request) {
	post(ctx, b.url, encode(r))
	r.samples = nil
}

// Positive twin (the batch goes only to the flush): before each flush the
// batch is handed to a helper that fills it with a shared table's rows.
func (b *Backfill) run(ctx context.Context) {
	r := &request{}
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			b.topUp(ctx, r)
			b.flush(ctx, r)
		case s := <-b.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Positive twin (the batch goes only to the flush, seen from a closure):
// a closure that captures the batch tops it up from the shared table
// before each flush.
func (b *Backfill) spool(ctx context.Context) {
	r := &request{}
	refill := func() { b.topUp(ctx, r) }
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			refill()
			b.flush(ctx, r)
		case s := <-b.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Export posts rows it reads on every tick, whatever it received.
type Export struct {
	url   string
	db    *sql.DB
	input chan sample
}

// NewExport makes the queue.
func NewExport(db *sql.DB, url string) *Export {
	return &Export{url: url, db: db, input: make(chan sample, 100)}
}

// Push queues a sample.
func (e *Export) Push(s sample) { e.input <- s }

func (e *Export) flush(ctx context.Context, r *request) {
	post(ctx, e.url, encode(r))
	r.samples = nil
}

// Positive: a chan-fed loop whose tick appends rows it just read from a
// shared database to the batch it posts.
func (e *Export) run(ctx context.Context) {
	r := &request{}
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	for {
		select {
		case <-tick.C:
			rows, err := e.db.QueryContext(ctx, `SELECT name, value FROM report`)
			if err != nil {
				continue
			}
			for rows.Next() {
				var s sample
				if rows.Scan(&s.name, &s.value) == nil {
					r.samples = append(r.samples, s)
				}
			}
			rows.Close()
			e.flush(ctx, r)
		case s := <-e.input:
			r.samples = append(r.samples, s)
		}
	}
}

// Start runs the loops.
func Start(ctx context.Context, w *Writer, rl *Relay, m *Mirror, t *Tail, b *Backfill, e *Export) {
	go w.run(ctx)
	go rl.run(ctx)
	go m.run(ctx)
	go t.run(ctx)
	go b.run(ctx)
	go b.spool(ctx)
	go e.run(ctx)
}
