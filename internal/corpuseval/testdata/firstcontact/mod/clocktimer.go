package fixture

import (
	"time"

	"k8s.io/utils/clock"
)

// A project's own AfterFunc over a mockable clock, in a file with no Reset.
func afterFunc(c clock.Clock, d time.Duration, f func()) {
	t := c.NewTimer(d) // site: job clock .NewTimer
	go func() {
		<-t.C()
		f()
	}()
}
