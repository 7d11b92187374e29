// Package clock is a minimal fake of k8s.io/utils/clock for analyzer tests.
package clock

import "time"

type PassiveClock interface {
	Now() time.Time
	Since(time.Time) time.Duration
}

type Clock interface {
	PassiveClock
	After(d time.Duration) <-chan time.Time
	NewTimer(d time.Duration) Timer
	Sleep(d time.Duration)
	Tick(d time.Duration) <-chan time.Time
}

type WithTicker interface {
	Clock
	NewTicker(time.Duration) Ticker
}

type WithDelayedExecution interface {
	Clock
	AfterFunc(d time.Duration, f func()) Timer
}

type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type RealClock struct{}

func (RealClock) Now() time.Time                            { return time.Now() }
func (RealClock) Since(t time.Time) time.Duration           { return 0 }
func (RealClock) After(d time.Duration) <-chan time.Time    { return nil }
func (RealClock) NewTimer(d time.Duration) Timer            { return nil }
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return nil }
func (RealClock) Tick(d time.Duration) <-chan time.Time     { return nil }
func (RealClock) NewTicker(d time.Duration) Ticker          { return nil }
func (RealClock) Sleep(d time.Duration)                     {}
