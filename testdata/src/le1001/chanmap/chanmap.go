// Package chanmap: log targets whose workers batch what the process's own
// callers sent on the target's channel and on a package-level map of
// spill channels, encode it into a pooled buffer and post it on a tick
// (per-replica by design), and twins whose channel, buffer or worker
// carries shared work.
package chanmap

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"sync"
	"time"

	"example.com/bufpool"
	"example.com/jsonlike"
)

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

var (
	spillMu sync.Mutex
	spill   = make(map[string]chan any)
)

// Target ships this process's log entries to a webhook.
type Target struct {
	name  string
	url   string
	queue chan any
}

// NewTarget makes the target's own queue.
func NewTarget(name, url string) *Target {
	return &Target{name: name, url: url, queue: make(chan any, 100)}
}

// Send queues an entry of the process's own log.
func (t *Target) Send(entry any) {
	select {
	case t.queue <- entry:
	default:
	}
}

// Resize makes the spill channel a reconfigured target takes over, and
// moves what the old one held.
func Resize(name string, size int) {
	spillMu.Lock()
	defer spillMu.Unlock()
	old, ok := spill[name]
	spill[name] = make(chan any, size)
	if !ok {
		return
	}
	for len(old) > 0 {
		spill[name] <- <-old
	}
}

// Negative: the worker batches what arrives on its own queue and on its
// spill channel, encodes it into a pooled buffer and posts it; it starts
// another worker of itself when the queue fills, and re-queues what it
// did not send. Each replica ships its own entries.
func (t *Target) worker(ctx context.Context, main bool) {
	entries := make([]any, 0)
	defer func() {
		spillMu.Lock()
		back, ok := spill[t.name]
		spillMu.Unlock()
		if !ok {
			return
		}
		for _, e := range entries {
			select {
			case back <- e:
			default:
			}
		}
	}()
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	enc := jsonlike.Standard.NewEncoder(buf)
	spillMu.Lock()
	side := spill[t.name]
	spillMu.Unlock()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	count := 0
	for {
		var entry any
		select {
		case <-tick.C:
		case entry = <-side:
		case entry = <-t.queue:
		case <-ctx.Done():
			return
		}
		if entry != nil {
			if err := enc.Encode(&entry); err != nil {
				continue
			}
			entries = append(entries, entry)
			count++
			continue
		}
		if count == 0 {
			continue
		}
		if main && len(t.queue) > cap(t.queue)/2 {
			go t.worker(ctx, false)
		}
		if post(ctx, t.url, buf.Bytes()) == nil {
			entries = make([]any, 0)
		}
		buf.Reset()
		count = 0
	}
}

// Queue is a shared queue a consumer library hands out deliveries of.
type Queue interface {
	Deliveries() chan any
}

var relays = make(map[string]chan any)

// Attach puts the shared queue's delivery channel in the map.
func Attach(q Queue, name string) {
	relays[name] = q.Deliveries()
}

// PushRelay queues a byte of the process's own.
func PushRelay(name string, b byte) { relays[name] <- b }

// Positive twin (the map's channels are made by the package): the channel
// in the map is the shared queue's, so every replica posts the same
// deliveries.
func relay(ctx context.Context, name, url string) {
	in := relays[name]
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	var batch []byte
	for {
		select {
		case <-tick.C:
			post(ctx, url, batch)
			batch = nil
		case v := <-in:
			batch = append(batch, v.(byte))
		}
	}
}

var pending = make(map[string]chan string)

// Open makes a pending channel.
func Open(name string) { pending[name] = make(chan string, 10) }

// Poll feeds the pending channel from a shared table.
func Poll(ctx context.Context, db *sql.DB, name string) {
	rows, err := db.QueryContext(ctx, "SELECT body FROM outbox")
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var body string
		if rows.Scan(&body) == nil {
			pending[name] <- body
		}
	}
}

// Positive twin (every send into the map's channels is own input): the
// channel carries rows of a shared table, which every replica posts.
func forward(ctx context.Context, name, url string) {
	in := pending[name]
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	var batch []byte
	for {
		select {
		case <-tick.C:
			post(ctx, url, batch)
			batch = nil
		case v := <-in:
			batch = append(batch, v...)
		}
	}
}

var lanes = make(map[string]chan string)

type lane struct{ out chan string }

// OpenLane makes a lane channel and hands it to a lane holder.
func OpenLane(name string) *lane {
	lanes[name] = make(chan string, 10)
	return &lane{out: lanes[name]}
}

// PushLane queues a line of the process's own.
func PushLane(name, line string) { lanes[name] <- line }

// Fill sends what the shared table holds through the lane's field.
func (l *lane) Fill(ctx context.Context, db *sql.DB) {
	var body string
	if db.QueryRowContext(ctx, "SELECT body FROM outbox LIMIT 1").Scan(&body) == nil {
		l.out <- body
	}
}

// Positive twin (a channel taken out of the map is used in place): the
// lane channel is stored into a field and fed shared rows from there.
func drainLane(ctx context.Context, name, url string) {
	in := lanes[name]
	tick := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it sends HTTP POST`
	defer tick.Stop()
	var batch []byte
	for {
		select {
		case <-tick.C:
			post(ctx, url, batch)
			batch = nil
		case v := <-in:
			batch = append(batch, v...)
		}
	}
}
