// Package owncert: timers that order or renew this instance's own TLS
// certificate through an ACME client and keep it in a local cache or the
// tls.Config it serves (per-replica by design), and their twins that send a
// shared report or also write a shared table.
package owncert

import (
	"context"
	"crypto"
	"crypto/tls"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// Negative: renewer re-arms one timer per name, as a forked autocert does: the
// renewal orders a new certificate and writes it to a directory of this
// process.
type renewer struct {
	client *acme.Client
	key    crypto.Signer
	name   string
	dir    string

	mu    sync.Mutex
	timer *time.Timer
	chain [][]byte
}

func (r *renewer) start(after time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		return
	}
	r.timer = time.AfterFunc(after, r.renew)
}

func (r *renewer) renew() {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	next := time.Hour
	if err := r.order(ctx); err == nil {
		next = 30 * 24 * time.Hour
	}
	r.timer = time.AfterFunc(next, r.renew)
}

func (r *renewer) order(ctx context.Context) error {
	o, err := r.client.AuthorizeOrder(ctx, acme.DomainIDs(r.name))
	if err != nil {
		return err
	}
	if o, err = r.client.WaitOrder(ctx, o.URI); err != nil {
		return err
	}
	der, _, err := r.client.CreateOrderCert(ctx, o.FinalizeURL, nil, true)
	if err != nil {
		return err
	}
	r.chain = der
	return os.WriteFile(filepath.Join(r.dir, r.name+".crt"), der[0], 0o600)
}

// Negative: the served certificate is refreshed from the autocert manager
// into the process's own tls.Config.
func refreshServing(m *autocert.Manager, cfg *tls.Config, name string) {
	for range time.Tick(12 * time.Hour) {
		cert, err := m.GetCertificate(&tls.ClientHelloInfo{ServerName: name})
		if err == nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
	}
}

// Positive twin: reporter re-arms a timer that posts the same daily report, read from the
// shared database, to an external webhook.
type reporter struct {
	db      *sql.DB
	webhook string

	mu    sync.Mutex
	timer *time.Timer
}

func (p *reporter) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = time.AfterFunc(time.Hour, p.send) // want `time.AfterFunc runs owncert.reporter.send on every replica every 1h0m0s: it sends HTTP POST; guarded only by sync.Mutex.Lock`
}

func (p *reporter) send() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var open int
	p.db.QueryRow(`SELECT count(*) FROM tickets WHERE state = 'open'`).Scan(&open)
	req, _ := http.NewRequest(http.MethodPost, p.webhook, strings.NewReader(`{"report":"daily"}`))
	http.DefaultClient.Do(req)
	p.timer = time.AfterFunc(24*time.Hour, p.send)
}

// Positive twin: the certificate is this instance's, but the renewal also
// records it in a shared table: that insert is the work's effect.
func renewAndRecord(ctx context.Context, db *sql.DB, client *acme.Client, name string) {
	for range time.Tick(24 * time.Hour) { // want `time.Tick runs loop body on every replica every 24h0m0s: it inserts into table issued_certs; guarded by nothing`
		o, err := client.AuthorizeOrder(ctx, acme.DomainIDs(name))
		if err != nil {
			continue
		}
		if _, _, err := client.CreateOrderCert(ctx, o.FinalizeURL, nil, true); err != nil {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO issued_certs (name) VALUES ($1)`, name)
	}
}
