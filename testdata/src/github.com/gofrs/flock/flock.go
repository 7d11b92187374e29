// Package flock is a stand-in for github.com/gofrs/flock with the shapes
// the analyzers read: a handle on a path, locked with flock(2).
package flock

import "context"

type Flock struct{ path string }

func New(path string) *Flock      { return &Flock{path: path} }
func NewFlock(path string) *Flock { return New(path) }

func (f *Flock) Path() string                                            { return f.path }
func (f *Flock) Lock() error                                             { return nil }
func (f *Flock) RLock() error                                            { return nil }
func (f *Flock) TryLock() (bool, error)                                  { return true, nil }
func (f *Flock) TryRLock() (bool, error)                                 { return true, nil }
func (f *Flock) TryLockContext(ctx context.Context, d int) (bool, error) { return true, nil }
func (f *Flock) Unlock() error                                           { return nil }
func (f *Flock) Close() error                                            { return nil }
func (f *Flock) Locked() bool                                            { return false }
