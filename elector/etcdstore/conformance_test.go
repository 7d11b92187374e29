package etcdstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestMain lets the conformance suite share one etcd; tests that restart or
// cut their server start a private one with testserver.NewEtcd.
func TestMain(m *testing.M) { testserver.Main(m) }

func TestConformance(t *testing.T) {
	e := testserver.Etcd(t)
	storetest.Run(t, func(t *testing.T) elector.Store {
		return New(newClient(t, e.Endpoint()))
	})
}
