package elector

import (
	"fmt"
	"time"
)

// leaseBounder is implemented by stores whose backend accepts only a range
// of lease durations (Azure Blob leases: 15 to 60 s), through a method
// LeaseBounds() (min, max time.Duration); see Store. New checks the
// Timing's LeaseDuration against it, so a timing the backend cannot honour
// fails when the candidate is built instead of on every acquire at run time.
//
// A store may round a shorter duration up to its minimum, as long as it
// still ends the term when the requested duration passes (the elector's
// deadline is what bounds the work; a longer backend lease only delays
// failover). It must never round down, so Max is a hard limit.
type leaseBounder interface {
	// LeaseBounds returns the shortest and longest lease the backend
	// grants; max 0 means no upper limit.
	LeaseBounds() (min, max time.Duration)
}

// checkLeaseBounds reports a lease duration the store cannot grant.
func checkLeaseBounds(s Store, t Timing) error {
	b, ok := s.(leaseBounder)
	if !ok {
		return nil
	}
	if _, hi := b.LeaseBounds(); hi > 0 && t.LeaseDuration > hi {
		return fmt.Errorf("elector: invalid timing: lease duration %v exceeds the store's longest lease (%v); "+
			"use a lease duration of at most %v with this store", t.LeaseDuration, hi, hi)
	}
	return nil
}
