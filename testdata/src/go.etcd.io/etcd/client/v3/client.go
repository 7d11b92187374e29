// Package clientv3 is a stub of go.etcd.io/etcd/client/v3 for analyzer
// tests: real signatures, trivial bodies.
package clientv3

import (
	"context"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// Config is the etcd client configuration.
type Config struct {
	Endpoints   []string
	DialTimeout time.Duration
	Username    string
	Password    string
}

// Client provides and manages an etcd v3 client session.
type Client struct {
	KV
	Lease
	Watcher
	ctx context.Context
}

func New(cfg Config) (*Client, error)  { return &Client{}, nil }
func (c *Client) Close() error         { return nil }
func (c *Client) Ctx() context.Context { return c.ctx }
func (c *Client) Endpoints() []string  { return nil }
func NewKV(c *Client) KV               { return nil }
func NewLease(c *Client) Lease         { return nil }

type ResponseHeader struct{ Revision int64 }

type (
	PutResponse struct {
		Header *ResponseHeader
		PrevKv *mvccpb.KeyValue
	}
	GetResponse struct {
		Header *ResponseHeader
		Kvs    []*mvccpb.KeyValue
		Count  int64
	}
	DeleteResponse struct {
		Header  *ResponseHeader
		Deleted int64
	}
	TxnResponse struct {
		Header    *ResponseHeader
		Succeeded bool
	}
)

// KV is the key-value API.
type KV interface {
	Put(ctx context.Context, key, val string, opts ...OpOption) (*PutResponse, error)
	Get(ctx context.Context, key string, opts ...OpOption) (*GetResponse, error)
	Delete(ctx context.Context, key string, opts ...OpOption) (*DeleteResponse, error)
	Txn(ctx context.Context) Txn
}

// Txn is the interface that wraps mini-transactions.
type Txn interface {
	If(cs ...Cmp) Txn
	Then(ops ...Op) Txn
	Else(ops ...Op) Txn
	Commit() (*TxnResponse, error)
}

// Cmp is a comparison in a transaction.
type Cmp struct {
	key    []byte
	target string
}

func Compare(cmp Cmp, result string, v any) Cmp { return cmp }
func Value(key string) Cmp                      { return Cmp{key: []byte(key)} }
func Version(key string) Cmp                    { return Cmp{key: []byte(key)} }
func CreateRevision(key string) Cmp             { return Cmp{key: []byte(key)} }
func ModRevision(key string) Cmp                { return Cmp{key: []byte(key)} }
func LeaseValue(key string) Cmp                 { return Cmp{key: []byte(key)} }

// Op is an operation in a transaction.
type Op struct {
	key []byte
}

// OpOption configures Operations like Get, Put, Delete.
type OpOption func(*Op)

func OpGet(key string, opts ...OpOption) Op      { return Op{key: []byte(key)} }
func OpPut(key, val string, opts ...OpOption) Op { return Op{key: []byte(key)} }
func OpDelete(key string, opts ...OpOption) Op   { return Op{key: []byte(key)} }
func WithLease(leaseID LeaseID) OpOption         { return func(*Op) {} }
func WithPrevKV() OpOption                       { return func(*Op) {} }
func WithPrefix() OpOption                       { return func(*Op) {} }
func WithIgnoreLease() OpOption                  { return func(*Op) {} }

// LeaseID is a lease identifier.
type LeaseID int64

const NoLease LeaseID = 0

type (
	LeaseGrantResponse struct {
		ID  LeaseID
		TTL int64
	}
	LeaseRevokeResponse    struct{}
	LeaseKeepAliveResponse struct {
		ID  LeaseID
		TTL int64
	}
)

// Lease is the lease API.
type Lease interface {
	Grant(ctx context.Context, ttl int64) (*LeaseGrantResponse, error)
	Revoke(ctx context.Context, id LeaseID) (*LeaseRevokeResponse, error)
	KeepAlive(ctx context.Context, id LeaseID) (<-chan *LeaseKeepAliveResponse, error)
	KeepAliveOnce(ctx context.Context, id LeaseID) (*LeaseKeepAliveResponse, error)
	Close() error
}

// WatchChan is a channel of watch responses.
type WatchChan <-chan WatchResponse

type WatchResponse struct{ Canceled bool }

// Watcher watches keys.
type Watcher interface {
	Watch(ctx context.Context, key string, opts ...OpOption) WatchChan
	Close() error
}
