// Package scriptkv is a key-value client the knowledge base does not know:
// scripts run on the server with keys and string arguments.
package scriptkv

import "context"

// Client talks to the server.
type Client struct{ addr string }

// Dial returns a client of addr.
func Dial(addr string) *Client { return &Client{addr: addr} }

// Script is a server-side script.
type Script struct{ src string }

// NewScript returns the script with source src.
func NewScript(src string) *Script { return &Script{src: src} }

// Result is a script's answer.
type Result struct {
	n   int64
	err error
}

// Int returns the answer as an integer.
func (r Result) Int() (int64, error) { return r.n, r.err }

// Run runs the script; a client retries it until ctx is done.
func (s *Script) Run(ctx context.Context, c *Client, keys, args []string) Result {
	return Result{}
}

// Put stores value under key until expiry (Unix milliseconds).
func (c *Client) Put(ctx context.Context, key, value string, expiryMillis int64) error {
	return nil
}
