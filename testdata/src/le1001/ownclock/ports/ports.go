// Package ports declares the pacer its users depend on and no function that
// makes a ticker: the interface method can only learn that it does from the
// one implementation, which lives in an imported package (wallclock).
package ports

import (
	"time"

	"le1001/ownclock/wallclock"
)

type Pacer interface {
	NewTicker(d time.Duration) *time.Ticker
}

// Default is the wall-clock pacer.
func Default() Pacer { return wallclock.Wall{} }
