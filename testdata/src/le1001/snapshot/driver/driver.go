// Package driver declares a blob store whose implementations are
// registered elsewhere.
package driver

import "context"

// Blobs is a blob store.
type Blobs interface {
	GetContent(ctx context.Context, path string) ([]byte, error)
	PutContent(ctx context.Context, path string, content []byte) error
	Delete(ctx context.Context, path string) error
	Verify(ctx context.Context, path string, content []byte) error
}

// Appender has no read method: not a store this analysis reads.
type Appender interface {
	PutContent(ctx context.Context, path string, content []byte) error
}
