// Package gentype is a test stand-in for client-go's generic typed client:
// generated clientsets embed its Client in a struct beside each typed
// interface. Only the shape matters here.
package gentype

import "context"

// Client reads and writes one kind of object.
type Client[T any] struct{ resource string }

// NewClient returns a client of the resource.
func NewClient[T any](resource string) *Client[T] { return &Client[T]{resource: resource} }

// Get reads an object.
func (c *Client[T]) Get(ctx context.Context, name string) (T, error) {
	var zero T
	return zero, nil
}

// Create stores a new object.
func (c *Client[T]) Create(ctx context.Context, obj T) (T, error) { return obj, nil }

// Update replaces an object at the resourceVersion it carries.
func (c *Client[T]) Update(ctx context.Context, obj T) (T, error) { return obj, nil }

// UpdateStatus replaces an object's status.
func (c *Client[T]) UpdateStatus(ctx context.Context, obj T) (T, error) { return obj, nil }

// Delete removes an object.
func (c *Client[T]) Delete(ctx context.Context, name string) error { return nil }
