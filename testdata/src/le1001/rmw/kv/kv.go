// Package kv is a store client whose writes the analysis cannot see: it
// talks to its server over a network connection it frames itself.
package kv

import (
	"context"
	"net"
)

type Client struct{ conn net.Conn }

type Quota struct {
	Used  int
	Limit int
}

func (c *Client) GetQuota(ctx context.Context, key string) (*Quota, error) {
	_, err := c.conn.Write([]byte("get " + key))
	return &Quota{}, err
}

func (c *Client) PutQuota(ctx context.Context, key string, q *Quota) error {
	_, err := c.conn.Write([]byte("put " + key))
	return err
}

// Local keeps quotas in this process's memory, behind the same methods.
type Local struct{ quotas map[string]*Quota }

func (l *Local) GetQuota(ctx context.Context, key string) (*Quota, error) {
	q := l.quotas[key]
	if q == nil {
		q = &Quota{}
	}
	return q, nil
}

func (l *Local) PutQuota(ctx context.Context, key string, q *Quota) error {
	l.quotas[key] = q
	return nil
}
