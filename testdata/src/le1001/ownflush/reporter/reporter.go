// Package reporter: periodic posts of what this process itself produced,
// collected in a local slice built by append, in a map field, or sent
// from a go closure (per-replica by design), and their twins whose
// payload carries what a query or a store answered.
package reporter

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"

	"le1001/otherbus"
	"le1001/ownflush"
)

var idleNote = "idle" // only ever a constant

func postLines(ctx context.Context, url string, lines []string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Tally collects the lines this process's handlers note.
type Tally struct {
	url   string
	wait  time.Duration
	lines chan string
	db    *sql.DB
}

// Note is the request path.
func (t *Tally) Note(line string) { t.lines <- line }

// Negative (1): a local slice built by append from the tally's own
// channel and constants; each replica posts its own lines.
func (t *Tally) run(ctx context.Context) {
	tick := time.NewTicker(t.wait)
	var pending []string
	for {
		select {
		case line := <-t.lines:
			pending = append(pending, strings.TrimSpace(line))
		case <-tick.C:
			if len(pending) == 0 {
				pending = append(pending, idleNote)
			}
			postLines(ctx, t.url, pending)
			pending = nil
		}
	}
}

// Positive twin (1): an appended element is read from a database query.
func (t *Tally) runWithTotals(ctx context.Context) {
	tick := time.NewTicker(t.wait) // want `time.NewTicker runs loop body on every replica: it sends HTTP POST`
	var pending []string
	for {
		select {
		case line := <-t.lines:
			pending = append(pending, line)
		case <-tick.C:
			var total string
			if t.db.QueryRowContext(ctx, `SELECT count(*) FROM lines`).Scan(&total) == nil {
				pending = append(pending, total)
			}
			postLines(ctx, t.url, pending)
			pending = nil
		}
	}
}

type stat struct {
	Name  string
	Count int
	First time.Time
}

type counter struct {
	count int
	first time.Time
}

func postStats(ctx context.Context, url string, stats []stat) {
	var b bytes.Buffer
	for _, s := range stats {
		b.WriteString(s.Name + "\n")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &b)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

func toStat(name string, c *counter) stat { return stat{Name: name, Count: c.count, First: c.first} }

// Counter counts the events this process publishes on its own bus, in a
// map field.
type Counter struct {
	url    string
	sub    *ownflush.Subscription
	counts map[string]*counter
}

// NewCounter subscribes to the process's bus.
func NewCounter(bus *ownflush.Bus, url string) *Counter {
	return &Counter{url: url, sub: bus.Subscribe(), counts: make(map[string]*counter)}
}

func (c *Counter) record(name string, at time.Time) {
	if k, ok := c.counts[name]; ok {
		k.count++
		return
	}
	c.counts[name] = &counter{count: 1, first: at}
}

// Negative (2): the map field is filled only from the process's own event
// subscription; the timer drains it (range + delete) into the payload.
func (c *Counter) run(ctx context.Context) {
	evs := c.sub.C()
	tick := time.NewTicker(time.Minute)
	for {
		select {
		case e := <-evs:
			c.record(e.Name, e.At)
		case <-tick.C:
			stats := make([]stat, 0, len(c.counts))
			for name, k := range c.counts {
				stats = append(stats, toStat(name, k))
				delete(c.counts, name)
			}
			postStats(ctx, c.url, stats)
		}
	}
}

// Ledger counts its own events too, but also loads counts from the
// shared database into the map.
type Ledger struct {
	url    string
	db     *sql.DB
	sub    *ownflush.Subscription
	counts map[string]*counter
}

// NewLedger subscribes to the process's bus.
func NewLedger(bus *ownflush.Bus, db *sql.DB, url string) *Ledger {
	return &Ledger{url: url, db: db, sub: bus.Subscribe(), counts: make(map[string]*counter)}
}

func (l *Ledger) record(name string, at time.Time) {
	l.counts[name] = &counter{count: 1, first: at}
}

func (l *Ledger) load(ctx context.Context) {
	rows, err := l.db.QueryContext(ctx, `SELECT name, first FROM counts`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var first time.Time
		if rows.Scan(&name, &first) == nil {
			l.record(name, first)
		}
	}
}

// Positive twin (2): the map field is also filled from rows of a query;
// every replica posts the same rows.
func (l *Ledger) run(ctx context.Context) {
	l.load(ctx)
	evs := l.sub.C()
	tick := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case e := <-evs:
			l.record(e.Name, e.At)
		case <-tick.C:
			stats := make([]stat, 0, len(l.counts))
			for name, k := range l.counts {
				stats = append(stats, toStat(name, k))
				delete(l.counts, name)
			}
			postStats(ctx, l.url, stats)
		}
	}
}

// Snapshot counts its own events, but its reload replaces the map with
// one filled from rows of a query.
type Snapshot struct {
	url    string
	db     *sql.DB
	sub    *ownflush.Subscription
	counts map[string]*counter
}

// NewSnapshot subscribes to the process's bus.
func NewSnapshot(bus *ownflush.Bus, db *sql.DB, url string) *Snapshot {
	return &Snapshot{url: url, db: db, sub: bus.Subscribe(), counts: make(map[string]*counter)}
}

func (s *Snapshot) record(name string, at time.Time) {
	s.counts[name] = &counter{count: 1, first: at}
}

func (s *Snapshot) reload(ctx context.Context) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, first FROM counts`)
	if err != nil {
		return
	}
	defer rows.Close()
	loaded := make(map[string]*counter)
	for rows.Next() {
		var name string
		var first time.Time
		if rows.Scan(&name, &first) == nil {
			loaded[name] = &counter{count: 1, first: first}
		}
	}
	s.counts = loaded
}

// Positive twin (every store into the map field is an empty map): the
// field is replaced by a map filled from rows of a query.
func (s *Snapshot) run(ctx context.Context) {
	s.reload(ctx)
	evs := s.sub.C()
	tick := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case e := <-evs:
			s.record(e.Name, e.At)
		case <-tick.C:
			stats := make([]stat, 0, len(s.counts))
			for name, k := range s.counts {
				stats = append(stats, toStat(name, k))
				delete(s.counts, name)
			}
			postStats(ctx, s.url, stats)
		}
	}
}

// Store is a shared store of lines.
type Store interface {
	Lines(ctx context.Context) ([]string, error)
}

// Relay forwards the process's own events from a go closure.
type Relay struct {
	url   string
	bus   *ownflush.Bus
	other *otherbus.Bus
	store Store
}

func describe(e ownflush.Event) string {
	if s, ok := e.Data.(string); ok {
		return e.Name + ": " + s
	}
	return e.Name
}

// Negative (3): the closure captures a slice built by append from the
// process's own event subscription; the send does not block the loop.
func (r *Relay) run(ctx context.Context) {
	sub := r.bus.Subscribe()
	evs := sub.C()
	timer := time.NewTimer(time.Second)
	var seen []string
	for {
		select {
		case e := <-evs:
			seen = append(seen, describe(e))
		case <-timer.C:
			lines := make([]string, 0, len(seen))
			lines = append(lines, seen...)
			seen = nil
			url := r.url
			go func() {
				postLines(ctx, url, lines)
			}()
			timer.Reset(time.Second)
		}
	}
}

// Positive twin (3): the slice the closure sends is also filled from a
// store read.
func (r *Relay) runMerged(ctx context.Context) {
	sub := r.bus.Subscribe()
	evs := sub.C()
	timer := time.NewTimer(time.Second) // want `time.NewTimer runs loop body on every replica every 1s: it sends HTTP POST`
	var seen []string
	for {
		select {
		case e := <-evs:
			seen = append(seen, describe(e))
		case <-timer.C:
			lines := make([]string, 0, len(seen))
			lines = append(lines, seen...)
			if shared, err := r.store.Lines(ctx); err == nil {
				lines = append(lines, shared...)
			}
			seen = nil
			go func() {
				postLines(ctx, r.url, lines)
			}()
			timer.Reset(time.Second)
		}
	}
}

// Positive twin (the subscription's module): the same loop over a channel
// another module's bus hands out.
func (r *Relay) runOther(ctx context.Context) {
	sub := r.other.Subscribe()
	evs := sub.C()
	timer := time.NewTimer(time.Second) // want `time.NewTimer runs loop body on every replica every 1s: it sends HTTP POST`
	var seen []string
	for {
		select {
		case e := <-evs:
			seen = append(seen, e.Name)
		case <-timer.C:
			lines := make([]string, 0, len(seen))
			lines = append(lines, seen...)
			seen = nil
			go func() {
				postLines(ctx, r.url, lines)
			}()
			timer.Reset(time.Second)
		}
	}
}

func postTo(ctx context.Context, target string, lines []string) {
	body := target + "\n" + strings.Join(lines, "\n")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Positive twin (the destination): the target, read from the database,
// is written into the body as well, so it is payload, not only the URL.
func (t *Tally) runTargeted(ctx context.Context) {
	tick := time.NewTicker(t.wait) // want `time.NewTicker runs loop body on every replica: it sends HTTP POST`
	var pending []string
	for {
		select {
		case line := <-t.lines:
			pending = append(pending, line)
		case <-tick.C:
			var target string
			if t.db.QueryRowContext(ctx, `SELECT url FROM targets`).Scan(&target) != nil {
				continue
			}
			postTo(ctx, target, pending)
			pending = nil
		}
	}
}

// Start runs the loops.
func Start(ctx context.Context, t *Tally, c *Counter, l *Ledger, s *Snapshot, r *Relay) {
	go t.run(ctx)
	go t.runWithTotals(ctx)
	go t.runTargeted(ctx)
	go c.run(ctx)
	go l.run(ctx)
	go s.run(ctx)
	go r.run(ctx)
	go r.runMerged(ctx)
	go r.runOther(ctx)
}
