package memstore_test

import (
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

func TestConformance(t *testing.T) {
	s := memstore.New()
	storetest.Run(t, func(t *testing.T) elector.Store { return s })
}
