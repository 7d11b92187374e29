package redisstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
)

// TestWatchCloses: a pub/sub connection cut or stalled through a proxy ends
// the watch.
func TestWatchCloses(t *testing.T) {
	faulttest.WatchBreaks(t, &watchCheck, func(t *testing.T) (elector.Watcher, *testserver.Proxy) {
		proxy := testserver.NewProxy(t, testserver.Redis(t).Addr())
		return mustNew(t, newClient(t, proxy.Addr()), WithPrefix(testPrefix(t))), proxy
	})
}
