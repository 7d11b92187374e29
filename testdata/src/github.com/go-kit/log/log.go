// Package log is a stand-in for the API surface of go-kit's logger that the
// fixtures use.
package log

// Logger writes key-value pairs.
type Logger interface {
	Log(keyvals ...interface{}) error
}

type nop struct{}

func (nop) Log(...interface{}) error { return nil }

// NewNopLogger returns a logger that writes nothing.
func NewNopLogger() Logger { return nop{} }
