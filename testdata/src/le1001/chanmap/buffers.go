package chanmap

import (
	"context"
	"database/sql"
	"time"

	"example.com/bufpool"
	"example.com/jsonlike"
	"example.com/netfill"
)

// Mixer is a target whose buffer also takes a shared table's rows.
type Mixer struct {
	db    *sql.DB
	url   string
	queue chan any
}

// NewMixer makes the mixer's own queue.
func NewMixer(db *sql.DB, url string) *Mixer {
	return &Mixer{db: db, url: url, queue: make(chan any, 100)}
}

// Send queues an entry of the process's own log.
func (m *Mixer) Send(entry any) { m.queue <- entry }

func (m *Mixer) header(ctx context.Context) []byte {
	var h string
	m.db.QueryRowContext(ctx, "SELECT header FROM settings").Scan(&h)
	return []byte(h)
}

// Positive twin (the buffer is written only with own data): a shared
// table's row goes into the buffer before the entries.
func (m *Mixer) worker(ctx context.Context) {
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	enc := jsonlike.Standard.NewEncoder(buf)
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	for {
		var entry any
		select {
		case <-tick.C:
			buf.Write(m.header(ctx))
			post(ctx, m.url, buf.Bytes())
			buf.Reset()
		case entry = <-m.queue:
			enc.Encode(&entry)
		}
	}
}

// Fetcher is a target whose buffer a networked package fills.
type Fetcher struct {
	url, source string
	queue       chan any
}

// NewFetcher makes the fetcher's own queue.
func NewFetcher(url, source string) *Fetcher {
	return &Fetcher{url: url, source: source, queue: make(chan any, 100)}
}

// Send queues an entry of the process's own log.
func (f *Fetcher) Send(entry any) { f.queue <- entry }

// Positive twin (the buffer goes only to packages that reach nothing
// outside): a package that reaches the network copies a remote document
// into the buffer.
func (f *Fetcher) worker(ctx context.Context) {
	buf := bufpool.Get()
	enc := jsonlike.Standard.NewEncoder(buf)
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	for {
		var entry any
		select {
		case <-tick.C:
			netfill.Fill(buf, f.source)
			post(ctx, f.url, buf.Bytes())
			buf.Reset()
		case entry = <-f.queue:
			enc.Encode(&entry)
		}
	}
}

// Decoder is a target whose entries a networked package overwrites.
type Decoder struct {
	url, source string
	queue       chan any
}

// NewDecoder makes the decoder's own queue.
func NewDecoder(url, source string) *Decoder {
	return &Decoder{url: url, source: source, queue: make(chan any, 100)}
}

// Send queues an entry of the process's own log.
func (d *Decoder) Send(entry any) { d.queue <- entry }

// Positive twin (the entry's address goes only to calls that reach
// nothing outside): a package that reaches the network writes the entry
// before it is encoded.
func (d *Decoder) worker(ctx context.Context) {
	buf := bufpool.Get()
	enc := jsonlike.Standard.NewEncoder(buf)
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	for {
		var entry any
		select {
		case <-tick.C:
			post(ctx, d.url, buf.Bytes())
			buf.Reset()
		case entry = <-d.queue:
			netfill.Decode(&entry, d.source)
			enc.Encode(&entry)
		}
	}
}

// Spawner posts a shared table's rows before its loop, and its loop only
// starts more of itself.
type Spawner struct {
	db  *sql.DB
	url string
}

// Positive twin (a call of the worker itself is skipped only beside
// other calls shown own): the loop's only call is the worker starting
// itself, whose posts of shared rows nothing judged.
func (s *Spawner) worker(ctx context.Context, n int) {
	var body string
	s.db.QueryRowContext(ctx, "SELECT body FROM outbox LIMIT 1").Scan(&body)
	post(ctx, s.url, []byte(body))
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	for range tick.C {
		if n > 0 {
			go s.worker(ctx, n-1)
		}
	}
}
