package etcdstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func TestConformance(t *testing.T) {
	e := testserver.Etcd(t)
	storetest.Run(t, func(t *testing.T) elector.Store {
		return New(newClient(t, e.Endpoint()))
	})
}
