// Package redislock is a stub of github.com/bsm/redislock for analyzer
// tests: real signatures, trivial bodies.
package redislock

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	// ErrNotObtained is returned when a lock cannot be obtained.
	ErrNotObtained = errors.New("redislock: not obtained")
	// ErrLockNotHeld is returned when trying to release an inactive lock.
	ErrLockNotHeld = errors.New("redislock: lock not held")
)

// RedisClient is a minimal client interface.
type RedisClient interface {
	redis.Scripter
}

// Client wraps a redis client.
type Client struct {
	client RedisClient
}

func New(client RedisClient) *Client { return &Client{client: client} }

func (c *Client) Obtain(ctx context.Context, key string, ttl time.Duration, opt *Options) (*Lock, error) {
	return &Lock{}, nil
}

func (c *Client) ObtainMulti(ctx context.Context, keys []string, ttl time.Duration, opt *Options) (*Lock, error) {
	return &Lock{}, nil
}

// Lock represents an obtained, distributed lock.
type Lock struct {
	keys  []string
	value string
}

func Obtain(ctx context.Context, client RedisClient, key string, ttl time.Duration, opt *Options) (*Lock, error) {
	return New(client).Obtain(ctx, key, ttl, opt)
}

func ObtainMulti(ctx context.Context, client RedisClient, keys []string, ttl time.Duration, opt *Options) (*Lock, error) {
	return New(client).ObtainMulti(ctx, keys, ttl, opt)
}

func (l *Lock) Key() string                                                        { return "" }
func (l *Lock) Keys() []string                                                     { return l.keys }
func (l *Lock) Token() string                                                      { return "" }
func (l *Lock) Metadata() string                                                   { return "" }
func (l *Lock) TTL(ctx context.Context) (time.Duration, error)                     { return 0, nil }
func (l *Lock) Refresh(ctx context.Context, ttl time.Duration, opt *Options) error { return nil }
func (l *Lock) Release(ctx context.Context) error                                  { return nil }

// Options describe the options for the lock.
type Options struct {
	RetryStrategy RetryStrategy
	Metadata      string
	Token         string
}

// RetryStrategy allows to customise the lock retry strategy.
type RetryStrategy interface {
	NextBackoff() time.Duration
}

func NoRetry() RetryStrategy                                  { return nil }
func LinearBackoff(backoff time.Duration) RetryStrategy       { return nil }
func LimitRetry(s RetryStrategy, max int) RetryStrategy       { return s }
func ExponentialBackoff(min, max time.Duration) RetryStrategy { return nil }
