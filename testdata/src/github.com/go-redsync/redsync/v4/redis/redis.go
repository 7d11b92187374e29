// Package redis is a stub of github.com/go-redsync/redsync/v4/redis.
package redis

import (
	"context"
	"time"
)

// Pool maintains a pool of Redis connections.
type Pool interface {
	Get(ctx context.Context) (Conn, error)
}

// Conn is a single Redis connection.
type Conn interface {
	Get(name string) (string, error)
	Set(name string, value string) (bool, error)
	SetNX(name string, value string, expiry time.Duration) (bool, error)
	Eval(script *Script, keysAndArgs ...any) (any, error)
	ScriptLoad(script *Script) error
	PTTL(name string) (time.Duration, error)
	Close() error
}

// Script encapsulates the source, hash and key count for a Lua script.
type Script struct {
	KeyCount int
	Src      string
	Hash     string
}

func NewScript(keyCount int, src, hash string) *Script { return &Script{keyCount, src, hash} }
