// Package alerting: alerts about rows of a shared database, sent on every
// replica's ticker to Alertmanager (which deduplicates alerts from HA
// senders: silent) and to a plain webhook (reported).
package alerting

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/prometheus/notifier"
)

func overdue(ctx context.Context, db *sql.DB) []string {
	rows, err := db.QueryContext(ctx, `SELECT name FROM invoices WHERE due < now()`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	return names
}

// Evaluator fires an alert per overdue invoice.
type Evaluator struct {
	db       *sql.DB
	notifier *notifier.Manager
}

// Negative: every replica fires the same alerts; Alertmanager keeps one
// per label set.
func (e *Evaluator) run(ctx context.Context) {
	go e.notifier.Run()
	t := time.NewTicker(time.Minute)
	for range t.C {
		var alerts []*notifier.Alert
		for _, n := range overdue(ctx, e.db) {
			alerts = append(alerts, &notifier.Alert{Labels: map[string]string{"alertname": "InvoiceOverdue", "invoice": n}})
		}
		e.notifier.Send(alerts...)
	}
}

// Negative: reloading the Alertmanagers drains a removed one's queue, to
// the same deduplicating receiver.
func (e *Evaluator) reload(urls func() []string) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		e.notifier.ApplyConfig(urls())
	}
}

// Hook posts the same events to a webhook.
type Hook struct {
	db  *sql.DB
	url string
}

// Positive twin (the receiver): a webhook does not deduplicate; every
// replica posts the same overdue invoices.
func (h *Hook) run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends; guarded by nothing`
	for range t.C {
		body := strings.Join(overdue(ctx, h.db), "\n")
		if resp, err := http.Post(h.url, "text/plain", strings.NewReader(body)); err == nil {
			resp.Body.Close()
		}
	}
}

// Start runs the loops.
func Start(ctx context.Context, e *Evaluator, h *Hook, urls func() []string) {
	go e.run(ctx)
	go e.reload(urls)
	go h.run(ctx)
}
