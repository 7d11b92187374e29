// Package output: outputs that drain the buffer their engine fills and
// hand the series to a client of another package of the module. Each
// replica posts what its own engine added. The twins post rows of a shared
// table through the same client, use a client that completes the payload
// from a shared table, or a client of another module.
package output

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"clientsendx"
	"le1001/clientsend"
	"le1001/embedbuffer/samplebuf"
)

func toSeries(ps []samplebuf.Point) []clientsend.Series {
	out := make([]clientsend.Series, 0, len(ps))
	for _, p := range ps {
		out = append(out, clientsend.Series{Name: p.Name, Value: strconv.FormatFloat(p.Value, 'g', -1, 64)})
	}
	return out
}

// Output embeds the buffer and holds a client of the module.
type Output struct {
	samplebuf.Buffer
	client *clientsend.Client
}

// Negative: the client posts only what this process's engine added.
func (o *Output) Start(every time.Duration) {
	samplebuf.NewFlusher(every, o.flush)
}

func (o *Output) flush() {
	ps := o.Take()
	if len(ps) == 0 {
		return
	}
	_ = o.client.Store(context.Background(), toSeries(ps))
}

// Rows hands the same client rows of a shared table.
type Rows struct {
	samplebuf.Buffer
	db     *sql.DB
	client *clientsend.Client
}

// Positive: every replica posts the same rows.
func (r *Rows) Start(every time.Duration) {
	samplebuf.NewFlusher(every, r.flush) // want `runs output.Rows.flush on every replica`
}

func (r *Rows) flush() {
	ctx := context.Background()
	rows, err := r.db.QueryContext(ctx, `SELECT name, value FROM pending_series`)
	if err != nil {
		return
	}
	defer rows.Close()
	var series []clientsend.Series
	for rows.Next() {
		var s clientsend.Series
		if rows.Scan(&s.Name, &s.Value) == nil {
			series = append(series, s)
		}
	}
	_ = r.client.Store(ctx, series)
}

// Merged drains its own buffer but posts through the client that adds
// the shared rows.
type Merged struct {
	samplebuf.Buffer
	client *clientsend.Merging
}

// Positive: the payload carries rows every replica reads.
func (m *Merged) Start(every time.Duration) {
	samplebuf.NewFlusher(every, m.flush) // want `runs output.Merged.flush on every replica`
}

func (m *Merged) flush() {
	_ = m.client.Store(context.Background(), toSeries(m.Take()))
}

// Foreign drains its own buffer into a client of another module.
type Foreign struct {
	samplebuf.Buffer
	client *clientsendx.Client
}

// Positive: another module's client is not followed.
func (f *Foreign) Start(every time.Duration) {
	samplebuf.NewFlusher(every, f.flush) // want `runs output.Foreign.flush on every replica`
}

func (f *Foreign) flush() {
	ps := f.Take()
	b := make([]byte, 0, len(ps))
	for _, p := range ps {
		b = append(b, p.Name...)
	}
	_ = f.client.Store(context.Background(), b)
}
