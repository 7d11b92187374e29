// Package clientsendx: a client of another module with the same shape as
// clientsend.Client.
package clientsendx

import (
	"bytes"
	"context"
	"net/http"
)

// Client posts bodies to an endpoint.
type Client struct {
	hc  *http.Client
	url string
}

// New makes a client.
func New(u string) *Client { return &Client{hc: &http.Client{}, url: u} }

// Store posts the body it is handed.
func (c *Client) Store(ctx context.Context, b []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
