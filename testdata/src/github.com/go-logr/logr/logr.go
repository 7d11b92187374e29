// Package logr is a stub of github.com/go-logr/logr for analyzer tests:
// real names and signatures of what the fixtures use, trivial bodies.
package logr

// Logger is an interface to an abstract logging implementation.
type Logger struct{}

func (l Logger) Info(msg string, keysAndValues ...any)             {}
func (l Logger) Error(err error, msg string, keysAndValues ...any) {}
func (l Logger) V(level int) Logger                                { return l }
func (l Logger) WithName(name string) Logger                       { return l }
func (l Logger) WithValues(keysAndValues ...any) Logger            { return l }

// Discard returns a Logger that discards all messages.
func Discard() Logger { return Logger{} }
