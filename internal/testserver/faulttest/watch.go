package faulttest

import (
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// WatchBreaks checks that a store's watch closes its channel when its
// connection breaks, so a standby falls back to polling instead of waiting
// for wakeups that cannot come. open returns a watcher whose connection
// goes through the proxy it also returns. check points at the store's
// watch ping interval: a stalled connection gives no error, only the
// watch's own ping after a quiet period finds it dead, so the Stall case
// shortens it to 200 ms for its duration.
func WatchBreaks(t *testing.T, check *time.Duration, open func(t *testing.T) (elector.Watcher, *testserver.Proxy)) {
	run := func(t *testing.T, fault func(*testserver.Proxy)) {
		w, proxy := open(t)
		// Quiet is not broken: with a short check, a quiet period of two
		// checks passes with successful pings and the channel stays open.
		quiet := 300 * time.Millisecond
		if *check < time.Second {
			quiet = 2 * *check
		}
		storetest.WatchBreak(t, w, quiet, 5**check+5*time.Second, func() { fault(proxy) })
	}
	t.Run("Cut", func(t *testing.T) { run(t, (*testserver.Proxy).Cut) })
	t.Run("Stall", func(t *testing.T) {
		old := *check
		*check = 200 * time.Millisecond
		t.Cleanup(func() { *check = old })
		run(t, (*testserver.Proxy).Stall)
	})
}
