// Package clock is a minimal fake of github.com/benbjohnson/clock for
// analyzer tests: the API's shape, trivial bodies.
package clock

import "time"

type Clock interface {
	After(d time.Duration) <-chan time.Time
	AfterFunc(d time.Duration, f func()) *Timer
	Now() time.Time
	Sleep(d time.Duration)
	Tick(d time.Duration) <-chan time.Time
	Ticker(d time.Duration) *Ticker
	Timer(d time.Duration) *Timer
}

type Ticker struct{ C <-chan time.Time }

func (t *Ticker) Stop()                 {}
func (t *Ticker) Reset(d time.Duration) {}

type Timer struct{ C <-chan time.Time }

func (t *Timer) Stop() bool                 { return true }
func (t *Timer) Reset(d time.Duration) bool { return true }

func New() Clock { return nil }
