// Package clientsend: remote-write clients an output of the same module
// calls: one that posts only the series it is handed, one that completes
// the payload with rows of a shared table.
package clientsend

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
)

// Series is one encoded time series.
type Series struct {
	Name  string
	Value string
}

// Client posts series to a configured endpoint.
type Client struct {
	hc  *http.Client
	url *url.URL
}

// NewClient makes a client for the endpoint.
func NewClient(u *url.URL) *Client { return &Client{hc: &http.Client{}, url: u} }

func body(series []Series) []byte {
	var b strings.Builder
	for _, s := range series {
		b.WriteString(s.Name + " " + s.Value + "\n")
	}
	return []byte(b.String())
}

// Store posts the series it is handed, nothing else.
func (c *Client) Store(ctx context.Context, series []Series) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url.String(), bytes.NewReader(body(series)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Merging posts the series it is handed together with the pending rows of
// a table every replica reads.
type Merging struct {
	db  *sql.DB
	hc  *http.Client
	url string
}

// NewMerging makes a merging client.
func NewMerging(db *sql.DB, u string) *Merging { return &Merging{db: db, hc: &http.Client{}, url: u} }

// Store adds the shared rows to the payload and posts it.
func (m *Merging) Store(ctx context.Context, series []Series) error {
	rows, err := m.db.QueryContext(ctx, `SELECT name, value FROM pending_series`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s Series
		if rows.Scan(&s.Name, &s.Value) == nil {
			series = append(series, s)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body(series)))
	if err != nil {
		return err
	}
	resp, err := m.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
