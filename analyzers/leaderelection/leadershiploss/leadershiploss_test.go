package leadershiploss_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/leadershiploss"
)

// The le4001/gated packages pair every silence of the gated-work check with
// a report that breaks its guard: cmdexit and singleexit (the loss ends the
// process) with cmd and single, providerexit (log.Fatalf) with
// providerrunner, single's Runnable syncer.Start with Begin, runner's
// Warmer (Synced is closed by no election) with Runner, clientgo's
// strictNode (OnStoppedLeading exits) with node, envtest (only a test drops
// the manager's error) with single.
//
// The le4001/renewheld packages do the same for the renewals that cannot
// report a lost hold (renewheld.go), each guard deleted once and seen to
// fail: the answer used (extendCounted, extendReturning,
// extendViaHelperCounted, extendOwn report without it), the holder in
// WHERE (extendAnyHolder, countAttempt, the claim and retryLater), the
// expiry moved (countAttempt), MinIdle zero (recoverIdle,
// recoverConfigured), the group reader's consumer (reassign), only the
// expiry set (retryLater), a claim of the same table (extendNote), the
// renewal not writing the holder itself (anyholder's claim).
func TestLeadershipLoss(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, leadershiploss.Analyzer, "le4001/leasekeeper", "le4001", "le4001/election", "le4001/platform", "le4001/controllers", "le4001/electorwork", "le4001/azure", "le4001/quietwrap", "le4001/quietuse", "le4001/renewloop", "le4001/renewdeadline", "le4001/renewheld", "le4001/renewheld/anyholder",
		"le4001/gated/config", "le4001/gated/provider", "le4001/gated/runner", "le4001/gated/providerrunner", "le4001/gated/providerexit",
		"le4001/gated/cmd", "le4001/gated/cmdexit", "le4001/gated/single", "le4001/gated/singleexit", "le4001/gated/clientgo", "le4001/gated/envtest")
}
