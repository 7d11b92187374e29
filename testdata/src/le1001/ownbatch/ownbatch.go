// Package ownbatch: periodic flushes of what the process itself received
// (per-replica by design) and their twins whose payload is read from
// shared state.
package ownbatch

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"
)

type record struct {
	tenant string
	line   string
}

type batch struct {
	lines   []string
	created time.Time
}

func newBatch(r record) *batch {
	return &batch{lines: []string{r.line}, created: time.Now()}
}

func post(ctx context.Context, url, tenant string, b *batch) {
	body := strings.Join(b.lines, "\n")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/"+tenant, bytes.NewReader([]byte(body)))
	http.DefaultClient.Do(req)
}

// Shipper batches the records this process's readers hand it.
type Shipper struct {
	url     string
	wait    time.Duration
	records chan record
}

// Handle is called by the process's readers for each record they read.
func (s *Shipper) Handle(tenant, line string) {
	s.records <- record{tenant: tenant, line: line}
}

func (s *Shipper) flush(ctx context.Context, tenant string, b *batch) {
	post(ctx, s.url, tenant, b)
}

// Negative: the ticker only flushes batches of records received on the
// shipper's own channel; each replica sends what it received.
func (s *Shipper) run(ctx context.Context) {
	batches := map[string]*batch{}
	tick := time.NewTicker(s.wait)
	defer tick.Stop()
	for {
		select {
		case r := <-s.records:
			if b, ok := batches[r.tenant]; ok {
				b.lines = append(b.lines, r.line)
				continue
			}
			batches[r.tenant] = newBatch(r)
		case <-tick.C:
			for tenant, b := range batches {
				if time.Since(b.created) < s.wait {
					continue
				}
				s.flush(ctx, tenant, b)
				delete(batches, tenant)
			}
		}
	}
}

// Feed is the channel that nothing in the package sends to and no method
// hands out: where its records come from is not known here.
type Feed struct {
	url     string
	wait    time.Duration
	records chan record
}

func (f *Feed) flush(ctx context.Context, tenant string, b *batch) {
	post(ctx, f.url, tenant, b)
}

// Positive twin (own channel): the same loop over a channel the package
// neither sends to nor hands out.
func (f *Feed) run(ctx context.Context) {
	batches := map[string]*batch{}
	tick := time.NewTicker(f.wait) // want `time.NewTicker runs loop body on every replica: it sends HTTP POST`
	for {
		select {
		case r := <-f.records:
			batches[r.tenant] = newBatch(r)
		case <-tick.C:
			for tenant, b := range batches {
				f.flush(ctx, tenant, b)
				delete(batches, tenant)
			}
		}
	}
}

// Mailer sends a digest of rows it reads.
type Mailer struct {
	url     string
	db      *sql.DB
	records chan record
}

// Handle is called by the process's readers.
func (m *Mailer) Handle(r record) { m.records <- r }

func (m *Mailer) flush(ctx context.Context, tenant string, b *batch) {
	rows, err := m.db.QueryContext(ctx, `SELECT line FROM digest WHERE tenant = $1`, tenant)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		rows.Scan(&line)
		b.lines = append(b.lines, line)
	}
	post(ctx, m.url, tenant, b)
}

// Positive twin (the helper reads no store): the flush reads rows from
// database/sql and posts them.
func (m *Mailer) run(ctx context.Context) {
	batches := map[string]*batch{}
	tick := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case r := <-m.records:
			batches[r.tenant] = newBatch(r)
		case <-tick.C:
			for tenant, b := range batches {
				m.flush(ctx, tenant, b)
				delete(batches, tenant)
			}
		}
	}
}

// Store is the shared store a digest is built from.
type Store interface {
	Pending(ctx context.Context, tenant string) (*batch, error)
}

// Digest flushes batches a store query built.
type Digest struct {
	url     string
	store   Store
	records chan record
}

// Handle is called by the process's readers.
func (d *Digest) Handle(r record) { d.records <- r }

func (d *Digest) flush(ctx context.Context, tenant string, b *batch) {
	post(ctx, d.url, tenant, b)
}

// Positive twin (the collection holds only received values): the batch
// sent is the answer of a store query made in the loop.
func (d *Digest) run(ctx context.Context) {
	batches := map[string]*batch{}
	tick := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case r := <-d.records:
			b, err := d.store.Pending(ctx, r.tenant)
			if err != nil {
				continue
			}
			batches[r.tenant] = b
		case <-tick.C:
			for tenant, b := range batches {
				d.flush(ctx, tenant, b)
				delete(batches, tenant)
			}
		}
	}
}

// Beat posts a constant on every tick.
type Beat struct{ url string }

func (b *Beat) ping(ctx context.Context, tenant string) {
	post(ctx, b.url, tenant, &batch{lines: []string{"alive"}})
}

// Positive twin (something was received): a constant payload, built from
// nothing the process received, tells the endpoint the same thing from
// every replica.
func (b *Beat) run(ctx context.Context) {
	tick := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for range tick.C {
		b.ping(ctx, "all")
	}
}

// Start runs the loops.
func Start(ctx context.Context, s *Shipper, f *Feed, m *Mailer, d *Digest, b *Beat) {
	go b.run(ctx)
	go s.run(ctx)
	go f.run(ctx)
	go m.run(ctx)
	go d.run(ctx)
}
