// Package uuid is a minimal stand-in for github.com/google/uuid.
package uuid

// UUID is a random identifier.
type UUID [16]byte

// New mints a UUID.
func New() UUID { return UUID{} }

// NewString mints a UUID as text.
func NewString() string { return "" }

func (u UUID) String() string { return "" }
