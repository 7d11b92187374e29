// Package redis is a stub of github.com/gomodule/redigo/redis for analyzer
// tests: real signatures, trivial bodies.
package redis

import (
	"context"
	"errors"
	"time"
)

// ErrNil indicates that a reply value is nil.
var ErrNil = errors.New("redigo: nil returned")

// Conn represents a connection to a Redis server.
type Conn interface {
	Close() error
	Err() error
	Do(commandName string, args ...interface{}) (reply interface{}, err error)
	Send(commandName string, args ...interface{}) error
	Flush() error
	Receive() (reply interface{}, err error)
}

// ConnWithContext is a Conn that supports contexts.
type ConnWithContext interface {
	Conn
	DoContext(ctx context.Context, commandName string, args ...interface{}) (reply interface{}, err error)
}

// DoContext sends a command to the server and returns the received reply.
func DoContext(c Conn, ctx context.Context, cmd string, args ...interface{}) (interface{}, error) {
	return nil, nil
}

// DialOption specifies an option for dialing a Redis server.
type DialOption struct{ f func() }

func Dial(network, address string, options ...DialOption) (Conn, error) { return nil, nil }

// Pool maintains a pool of connections.
type Pool struct {
	Dial        func() (Conn, error)
	MaxIdle     int
	MaxActive   int
	IdleTimeout time.Duration
	Wait        bool
}

func (p *Pool) Get() Conn                                    { return nil }
func (p *Pool) GetContext(ctx context.Context) (Conn, error) { return nil, nil }
func (p *Pool) Close() error                                 { return nil }

func String(reply interface{}, err error) (string, error) { return "", err }
func Int(reply interface{}, err error) (int, error)       { return 0, err }
func Int64(reply interface{}, err error) (int64, error)   { return 0, err }
func Bool(reply interface{}, err error) (bool, error)     { return false, err }

// Script encapsulates the source, hash and key count for a Lua script.
type Script struct {
	keyCount int
	src      string
	hash     string
}

func NewScript(keyCount int, src string) *Script { return &Script{keyCount: keyCount, src: src} }

func (s *Script) Do(c Conn, keysAndArgs ...interface{}) (interface{}, error) { return nil, nil }
func (s *Script) DoContext(ctx context.Context, c Conn, keysAndArgs ...interface{}) (interface{}, error) {
	return nil, nil
}
func (s *Script) Load(c Conn) error                             { return nil }
func (s *Script) Send(c Conn, keysAndArgs ...interface{}) error { return nil }
