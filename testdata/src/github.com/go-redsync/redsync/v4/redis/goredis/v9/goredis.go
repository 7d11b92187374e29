// Package goredis is a stub of github.com/go-redsync/redsync/v4/redis/goredis/v9.
package goredis

import (
	"context"

	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/redis/go-redis/v9"
)

type pool struct {
	delegate redis.UniversalClient
}

func (p *pool) Get(ctx context.Context) (redsyncredis.Conn, error) { return nil, nil }

// NewPool returns a Goredis-based pool implementation.
func NewPool(delegate redis.UniversalClient) redsyncredis.Pool { return &pool{delegate} }
