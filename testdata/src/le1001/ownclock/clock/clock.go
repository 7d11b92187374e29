// Package clock is a project's own clock abstraction over the time package,
// so that tests can inject a fake.
package clock

import "time"

type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration) bool
}

type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
	NewTimer(d time.Duration) Timer
}

type realClock struct{}

// Real returns the clock of the time package.
func Real() Clock { return realClock{} }

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTicker(d time.Duration) Ticker { return &realTicker{t: time.NewTicker(d)} }

func (realClock) NewTimer(d time.Duration) Timer {
	t := time.NewTimer(d)
	return &realTimer{t: t}
}

type realTicker struct{ t *time.Ticker }

func (r *realTicker) C() <-chan time.Time { return r.t.C }
func (r *realTicker) Stop()               { r.t.Stop() }

type realTimer struct{ t *time.Timer }

func (r *realTimer) C() <-chan time.Time        { return r.t.C }
func (r *realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

// A test double does not count among the implementations.
type fakeClock struct{ ch chan time.Time }

func (f *fakeClock) Now() time.Time                   { return time.Time{} }
func (f *fakeClock) NewTicker(d time.Duration) Ticker { return nil }
func (f *fakeClock) NewTimer(d time.Duration) Timer   { return nil }

// Pacer has two real implementations, one of which ticks only when the
// caller says so.
type Pacer interface {
	NewTicker(d time.Duration) Ticker
}

type wallPacer struct{}

func (wallPacer) NewTicker(d time.Duration) Ticker { return &realTicker{t: time.NewTicker(d)} }

type manualPacer struct{ ch chan time.Time }

func (m *manualPacer) NewTicker(d time.Duration) Ticker { return &manualTicker{ch: m.ch} }

type manualTicker struct{ ch chan time.Time }

func (m *manualTicker) C() <-chan time.Time { return m.ch }
func (m *manualTicker) Stop()               {}

// Wall has only the time-based implementation (the manual pacer tells no
// time).
type Wall interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

func (wallPacer) Now() time.Time { return time.Now() }

var _ Wall = wallPacer{}

// Latest has one implementation whose name only looks like a test double
// (latest, not test): it counts, and it ticks by hand.
type Latest interface {
	Since() time.Duration
	NewTicker(d time.Duration) Ticker
}

type latestPacer struct{ ch chan time.Time }

func (l *latestPacer) Since() time.Duration             { return 0 }
func (l *latestPacer) NewTicker(d time.Duration) Ticker { return &manualTicker{ch: l.ch} }

type wallSince struct{}

func (wallSince) Since() time.Duration             { return 0 }
func (wallSince) NewTicker(d time.Duration) Ticker { return &realTicker{t: time.NewTicker(d)} }
