// Package errgroup is a stub of golang.org/x/sync/errgroup for analyzer
// tests: real names and signatures, trivial bodies.
package errgroup

import "context"

// A Group is a collection of goroutines working on subtasks of a common task.
type Group struct{}

// WithContext returns a new Group and an associated Context derived from ctx.
func WithContext(ctx context.Context) (*Group, context.Context) { return &Group{}, ctx }

// Go calls the given function in a new goroutine.
func (g *Group) Go(f func() error) {}

// Wait blocks until all function calls from the Go method have returned.
func (g *Group) Wait() error { return nil }
