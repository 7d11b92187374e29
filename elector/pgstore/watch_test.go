package pgstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
)

// TestWatchCloses: a LISTEN connection cut or stalled through a proxy ends
// the watch.
func TestWatchCloses(t *testing.T) {
	faulttest.WatchBreaks(t, &watchCheck, func(t *testing.T) (elector.Watcher, *testserver.Proxy) {
		_, table := testDB(t)
		proxy := testserver.NewProxy(t, testserver.Postgres(t).Addr())
		return newStore(t, testserver.ProxyDSN(proxy, "postgres"), WithTable(table)), proxy
	})
}
