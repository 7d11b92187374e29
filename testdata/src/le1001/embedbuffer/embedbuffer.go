// Package embedbuffer: outputs that embed a buffer type of another package
// and flush it on a periodic callback taking a method value: each replica
// posts what its own engine added. Their twins post rows of a shared
// table, directly or through a buffer type that loads them.
package embedbuffer

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"time"

	"le1001/embedbuffer/samplebuf"
)

func encode(ps []samplebuf.Point) []byte {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Name + " " + strconv.FormatFloat(p.Value, 'g', -1, 64) + "\n")
	}
	return []byte(b.String())
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

// Output embeds the buffer: the engine calls the promoted Add.
type Output struct {
	samplebuf.Buffer
	url     string
	flusher *samplebuf.Flusher
}

// Negative: the callback posts what this process's engine added.
func (o *Output) Start(every time.Duration) {
	o.flusher = samplebuf.NewFlusher(every, o.flush)
}

func (o *Output) flush() {
	ps := o.Take()
	if len(ps) == 0 {
		return
	}
	post(context.Background(), o.url, encode(ps))
}

// Held holds the buffer in a pointer field instead.
type Held struct {
	buf *samplebuf.Buffer
	url string
}

// Negative: the same flush through a field of the receiver.
func (h *Held) Start(every time.Duration) {
	samplebuf.NewFlusher(every, h.flush)
}

func (h *Held) flush() {
	post(context.Background(), h.url, encode(h.buf.Take()))
}

// Table embeds the buffer too, but its flush posts rows of a shared
// table.
type Table struct {
	samplebuf.Buffer
	db  *sql.DB
	url string
}

// Positive: every replica posts the same rows.
func (t *Table) Start(every time.Duration) {
	samplebuf.NewFlusher(every, t.flush) // want `runs embedbuffer.Table.flush on every replica`
}

func (t *Table) flush() {
	ctx := context.Background()
	rows, err := t.db.QueryContext(ctx, `SELECT name, value FROM pending_points`)
	if err != nil {
		return
	}
	defer rows.Close()
	var ps []samplebuf.Point
	for rows.Next() {
		var p samplebuf.Point
		if rows.Scan(&p.Name, &p.Value) == nil {
			ps = append(ps, p)
		}
	}
	post(ctx, t.url, encode(ps))
}

// Loaded embeds the buffer type that loads the shared table itself.
type Loaded struct {
	samplebuf.Shared
	url string
}

// Positive: the drained buffer holds rows every replica loaded.
func (l *Loaded) Start(every time.Duration) {
	samplebuf.NewFlusher(every, l.flush) // want `runs embedbuffer.Loaded.flush on every replica`
}

func (l *Loaded) flush() {
	ctx := context.Background()
	if l.Load(ctx) != nil {
		return
	}
	post(ctx, l.url, encode(l.Take()))
}
