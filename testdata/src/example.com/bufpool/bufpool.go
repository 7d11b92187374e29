// Package bufpool hands out reusable byte buffers; it reaches nothing
// outside the process.
package bufpool

import "sync"

// Buffer is a growable byte slice.
type Buffer struct{ B []byte }

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.B = append(b.B, p...)
	return len(p), nil
}

// Bytes returns the contents.
func (b *Buffer) Bytes() []byte { return b.B }

// Reset empties the buffer.
func (b *Buffer) Reset() { b.B = b.B[:0] }

var pool sync.Pool

// Get returns an empty buffer.
func Get() *Buffer {
	if v := pool.Get(); v != nil {
		return v.(*Buffer)
	}
	return &Buffer{}
}

// Put returns b to the pool.
func Put(b *Buffer) {
	b.Reset()
	pool.Put(b)
}
