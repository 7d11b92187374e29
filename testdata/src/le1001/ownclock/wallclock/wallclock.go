// Package wallclock implements ports.Pacer with the time package, in a
// package apart from the interface.
package wallclock

import "time"

type Wall struct{}

func (Wall) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }
