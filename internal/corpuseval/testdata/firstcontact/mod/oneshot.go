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
