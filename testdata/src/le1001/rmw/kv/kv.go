// Package kv is a store client whose writes the analysis cannot see: it
// talks to its server through a transport interface.
package kv

import "context"

type Transport interface {
	RoundTrip(ctx context.Context, op string, key string, val []byte) ([]byte, error)
}

type Client struct{ t Transport }

type Quota struct {
	Used  int
	Limit int
}

func (c *Client) GetQuota(ctx context.Context, key string) (*Quota, error) {
	_, err := c.t.RoundTrip(ctx, "get", key, nil)
	return &Quota{}, err
}

func (c *Client) PutQuota(ctx context.Context, key string, q *Quota) error {
	_, err := c.t.RoundTrip(ctx, "put", key, nil)
	return err
}
