package elector_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

// boundedStore is a memstore that declares Azure-like lease bounds.
type boundedStore struct {
	*memstore.Store
	min, max time.Duration
}

func (b boundedStore) LeaseBounds() (time.Duration, time.Duration) { return b.min, b.max }

func TestNewChecksStoreLeaseBounds(t *testing.T) {
	// A valid timing apart from its length: renew at a third of the lease.
	timing := func(lease time.Duration) elector.Timing {
		return elector.Timing{LeaseDuration: lease, RenewInterval: lease / 3, RetryInterval: lease / 10,
			DriftBound: lease / 20, StopBudget: lease / 20}
	}
	s := boundedStore{memstore.New(), 15 * time.Second, 60 * time.Second}
	for _, tc := range []struct {
		lease time.Duration
		ok    bool
	}{
		{60 * time.Second, true},
		{30 * time.Second, true},
		{2 * time.Second, true}, // below the minimum: the store rounds up
		{61 * time.Second, false},
		{5 * time.Minute, false},
	} {
		tm := timing(tc.lease)
		if err := tm.Validate(); err != nil {
			t.Fatalf("timing for %v is invalid on its own: %v", tc.lease, err)
		}
		_, err := elector.New(s, "bounded", elector.WithTiming(tm))
		if tc.ok && err != nil {
			t.Errorf("lease %v: New = %v, want it accepted", tc.lease, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "exceeds the store's longest lease (1m0s)")) {
			t.Errorf("lease %v: New = %v, want an error naming the 1m0s limit", tc.lease, err)
		}
	}
	// No upper bound declared: any valid timing passes.
	unbounded := boundedStore{memstore.New(), 0, 0}
	if _, err := elector.New(unbounded, "unbounded", elector.WithTiming(timing(5*time.Minute))); err != nil {
		t.Errorf("store without a maximum: New = %v", err)
	}
}
