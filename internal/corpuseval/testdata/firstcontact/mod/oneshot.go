package fixture

import (
	"context"
	"time"
)

// A file without any Reset call: its timers are one-shot.
func timeout(ctx context.Context) {
	timer := time.NewTimer(time.Second) // a one-shot timer without Reset: not a site
	<-timer.C
	select {
	case <-ctx.Done():
	case <-time.After(time.Second): // a timeout outside a loop: not a site
	}
}

// A timer made anew on every iteration is re-armed by the loop.
func cronLoop(next func() time.Duration) {
	for {
		timer := time.NewTimer(next()) // site: job time.NewTimer in a loop
		<-timer.C
	}
}

// A deadline made once before the loop that waits on it is not re-armed.
func drain(ch <-chan int) {
	deadline := time.NewTimer(time.Minute) // made before the loop: not a site
	for {
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}
