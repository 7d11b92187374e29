package le1001

import (
	"bytes"
	"context"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"time"

	"golang.org/x/crypto/ocsp"
)

// Negative: every replica posts its own runtime statistics.
func reportStats(ctx context.Context, endpoint string) {
	for range time.Tick(time.Hour) {
		body, _ := json.Marshal(map[string]int{"goroutines": runtime.NumGoroutine()})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		http.DefaultClient.Do(req)
	}
}

// Positive twin: the same POST carries nothing of the process: a shared
// notification, sent once per replica.
func postDigest(ctx context.Context, endpoint string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it sends HTTP POST; guarded by nothing`
		body := []byte(`{"digest":"daily"}`)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		http.DefaultClient.Do(req)
	}
}

// Positive twin: the statistics are read, but the work also writes a
// shared table.
func statsAndInsert(ctx context.Context, db *sql.DB, endpoint string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table stats_log, sends HTTP POST; guarded by nothing`
		n := runtime.NumGoroutine()
		db.ExecContext(ctx, `INSERT INTO stats_log (n) VALUES ($1)`, n)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
		http.DefaultClient.Do(req)
	}
}

// Negative: an OCSP status query for the process's own certificate is a
// POST that asks, not one that tells.
func refreshStaple(cert, issuer *x509.Certificate, url string) {
	for range time.Tick(time.Hour) {
		req, _ := ocsp.CreateRequest(cert, issuer, nil)
		resp, err := http.Post(url, "application/ocsp-request", bytes.NewReader(req))
		if err == nil {
			resp.Body.Close()
		}
	}
}

// Positive twin: a POST of a constant body tells the endpoint something.
func pingWebhook(url string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it sends; guarded by nothing`
		http.Post(url, "application/json", strings.NewReader(`{"ping":true}`))
	}
}

// Negative: the same query built with NewRequest.
func refreshStapleRequest(ctx context.Context, cert, issuer *x509.Certificate, url string) {
	for range time.Tick(time.Hour) {
		der, _ := ocsp.CreateRequest(cert, issuer, nil)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewBuffer(der))
		http.DefaultClient.Do(req)
	}
}
