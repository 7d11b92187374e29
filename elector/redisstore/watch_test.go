package redisstore

import (
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// A watch whose connection breaks must close its channel, so the standby
// falls back to polling instead of waiting for wakeups that cannot come.

func TestWatchClosesWhenCut(t *testing.T) {
	testWatchBreak(t, (*testserver.Proxy).Cut)
}

func TestWatchClosesWhenStalled(t *testing.T) {
	// A stalled connection gives no error; only the watch's own ping after
	// a quiet period finds it dead.
	old := watchCheck
	watchCheck = 200 * time.Millisecond
	t.Cleanup(func() { watchCheck = old })
	testWatchBreak(t, (*testserver.Proxy).Stall)
}

func testWatchBreak(t *testing.T, fault func(*testserver.Proxy)) {
	proxy := testserver.NewProxy(t, testserver.Redis(t).Addr())
	s := New(newClient(t, proxy.Addr()), WithPrefix(testPrefix(t)))
	// Quiet is not broken: with a short watchCheck, a quiet period of two
	// checks passes with successful pings and the channel stays open.
	quiet := 300 * time.Millisecond
	if watchCheck < time.Second {
		quiet = 2 * watchCheck
	}
	storetest.WatchBreak(t, s, quiet, 5*watchCheck+5*time.Second, func() { fault(proxy) })
}
