// Package kvstore is a stand-in for a key-value service client reached
// over the network.
package kvstore

import (
	"context"
	"net/http"
	"time"
)

type Client struct{ hc *http.Client }

func (c *Client) Get(ctx context.Context, key string) (string, error) { return "", nil }

// CompareAndSwap sets key to new if it holds old ("" for absent).
func (c *Client) CompareAndSwap(ctx context.Context, key, old, new string) (bool, error) {
	return false, nil
}

// CompareAndSwapTTL is CompareAndSwap with an expiry of the new value.
func (c *Client) CompareAndSwapTTL(ctx context.Context, key, old, new string, ttl time.Duration) (bool, error) {
	return false, nil
}

type SessionID string

// CompareAndSwapSession binds the new value to a session: it is deleted
// when the session ends.
func (c *Client) CompareAndSwapSession(ctx context.Context, key, old, new string, s SessionID) (bool, error) {
	return false, nil
}

func (c *Client) Delete(ctx context.Context, key string) error { return nil }
