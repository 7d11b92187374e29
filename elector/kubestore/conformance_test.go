package kubestore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

func TestConformance(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	storetest.Run(t, func(t *testing.T) elector.Store { return newStore(t, k) })
}
