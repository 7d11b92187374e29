// Package api is a stub of github.com/hashicorp/consul/api (v1.34) for
// analyzer tests: real names and signatures of what the fixtures use,
// trivial bodies.
package api

import (
	"context"
	"net/http"
	"time"
)

// Config is used to configure the creation of a client.
type Config struct {
	Address string
	Scheme  string
	Token   string

	// HttpClient is the client requests use (nil: one with no Timeout).
	HttpClient *http.Client
	// Transport is the transport of the client NewClient builds.
	Transport *http.Transport
	// WaitTime limits blocking queries.
	WaitTime time.Duration
}

// DefaultConfig returns a default configuration for the client.
func DefaultConfig() *Config { return &Config{Address: "127.0.0.1:8500"} }

// Client provides a client to the Consul API.
type Client struct {
	config Config
}

// NewClient returns a new client.
func NewClient(config *Config) (*Client, error) { return &Client{config: *config}, nil }

// LockOptions is used to parameterize the Lock behavior.
type LockOptions struct {
	Key              string
	Value            []byte
	Session          string
	SessionOpts      *SessionEntry
	SessionName      string
	SessionTTL       string
	MonitorRetries   int
	MonitorRetryTime time.Duration
	LockWaitTime     time.Duration
	LockTryOnce      bool
	LockDelay        time.Duration
	Namespace        string
}

// Lock is used to implement client-side leader election.
type Lock struct {
	c    *Client
	opts *LockOptions
}

// LockKey returns a handle to a lock struct.
func (c *Client) LockKey(key string) (*Lock, error) { return &Lock{c: c}, nil }

// LockOpts returns a handle to a lock struct using the provided options.
func (c *Client) LockOpts(opts *LockOptions) (*Lock, error) { return &Lock{c: c, opts: opts}, nil }

// Lock attempts to acquire the lock and blocks while doing so. It returns a
// channel that is closed if our lock is lost or an error.
func (l *Lock) Lock(stopCh <-chan struct{}) (<-chan struct{}, error) { return nil, nil }

// Unlock released the lock.
func (l *Lock) Unlock() error { return nil }

// Destroy is used to cleanup the lock entry.
func (l *Lock) Destroy() error { return nil }

// SessionEntry represents a session in consul.
type SessionEntry struct {
	CreateIndex uint64
	ID          string
	Name        string
	Node        string
	LockDelay   time.Duration
	Behavior    string
	TTL         string
	Namespace   string
}

// Session can be used to query the Session endpoints.
type Session struct{ c *Client }

// Session returns a handle to the session endpoints.
func (c *Client) Session() *Session { return &Session{c: c} }

// WriteOptions are used to parameterize a write.
type WriteOptions struct {
	Datacenter string
	ctx        context.Context
}

// WithContext returns a copy of o that sends its requests on ctx.
func (o *WriteOptions) WithContext(ctx context.Context) *WriteOptions {
	o2 := new(WriteOptions)
	if o != nil {
		*o2 = *o
	}
	o2.ctx = ctx
	return o2
}

// WriteMeta is used to return meta data about a write.
type WriteMeta struct{ RequestTime time.Duration }

// Create makes a new session.
func (s *Session) Create(se *SessionEntry, q *WriteOptions) (string, *WriteMeta, error) {
	return "", nil, nil
}

// Renew renews the session's TTL; a nil entry means the session is gone.
func (s *Session) Renew(id string, q *WriteOptions) (*SessionEntry, *WriteMeta, error) {
	return nil, nil, nil
}
