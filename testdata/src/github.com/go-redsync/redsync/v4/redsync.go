// Package redsync is a stub of github.com/go-redsync/redsync/v4 for analyzer
// tests: real signatures, trivial bodies.
package redsync

import (
	"context"
	"errors"
	"time"

	"github.com/go-redsync/redsync/v4/redis"
)

// ErrFailed is the error resulting if Redsync fails to acquire the lock.
var ErrFailed = errors.New("redsync: failed to acquire lock")

// Redsync provides a simple method for creating distributed mutexes.
type Redsync struct {
	pools []redis.Pool
}

func New(pools ...redis.Pool) *Redsync { return &Redsync{pools: pools} }

// NewMutex returns a new distributed mutex with given name (expiry 8 s
// unless WithExpiry says otherwise).
func (r *Redsync) NewMutex(name string, options ...Option) *Mutex {
	m := &Mutex{name: name, expiry: 8 * time.Second}
	for _, o := range options {
		o.Apply(m)
	}
	return m
}

// An Option configures a mutex.
type Option interface {
	Apply(*Mutex)
}

// OptionFunc is a function that configures a mutex.
type OptionFunc func(*Mutex)

func (f OptionFunc) Apply(mutex *Mutex) { f(mutex) }

func WithExpiry(expiry time.Duration) Option {
	return OptionFunc(func(m *Mutex) { m.expiry = expiry })
}
func WithTries(tries int) Option                { return OptionFunc(func(m *Mutex) {}) }
func WithRetryDelay(delay time.Duration) Option { return OptionFunc(func(m *Mutex) {}) }
func WithDriftFactor(factor float64) Option     { return OptionFunc(func(m *Mutex) {}) }
func WithTimeoutFactor(factor float64) Option   { return OptionFunc(func(m *Mutex) {}) }
func WithGenValueFunc(genValueFunc func() (string, error)) Option {
	return OptionFunc(func(m *Mutex) {})
}
func WithValue(v string) Option { return OptionFunc(func(m *Mutex) {}) }

// A Mutex is a distributed mutual exclusion lock.
type Mutex struct {
	name   string
	expiry time.Duration
	value  string
	until  time.Time
}

func (m *Mutex) Name() string                                    { return m.name }
func (m *Mutex) Value() string                                   { return m.value }
func (m *Mutex) Until() time.Time                                { return m.until }
func (m *Mutex) TryLock() error                                  { return nil }
func (m *Mutex) TryLockContext(ctx context.Context) error        { return nil }
func (m *Mutex) Lock() error                                     { return nil }
func (m *Mutex) LockContext(ctx context.Context) error           { return nil }
func (m *Mutex) Unlock() (bool, error)                           { return true, nil }
func (m *Mutex) UnlockContext(ctx context.Context) (bool, error) { return true, nil }
func (m *Mutex) Extend() (bool, error)                           { return true, nil }
func (m *Mutex) ExtendContext(ctx context.Context) (bool, error) { return true, nil }
func (m *Mutex) Valid() (bool, error)                            { return true, nil }
func (m *Mutex) ValidContext(ctx context.Context) (bool, error)  { return true, nil }
