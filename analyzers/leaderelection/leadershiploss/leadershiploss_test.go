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
//
// The le4001/session packages pair every silence of the consumer-group
// claim check (session.go) with a report: watchedRelay/relay (a hoisted
// session Done in the select), sessionSaver/saver (a session-derived
// context handed on), fewTries/manyTries (a counted loop), askingSaver/
// manyTries (the session handed on), setupCtx/ownCtx (a field Setup
// writes), perClaim/sharedWorker (a field given sess.Context()),
// revoking/closing (a channel Cleanup closes), batching/feeding (the
// claim's messages), exportedRelay/relay (an exported field),
// cancelling/ownCtx (a cancel Cleanup calls), ticking/pumping (no message
// handled), the shopify package's sessionForwarder/forwarder (sarama's old
// path), and across packages uselib's sessionUser/detachedUser (the fact's
// context parameter) with retrylib's DeliverForever/foreverUser (blind
// whatever context); each guard deleted once and seen to fail.
//
// The le4001/unbounded packages pair every silence of the renewal with no
// deadline (unbounded.go) with a report: boundedHolder (a context with a
// timeout) with helperHolder (context.Background()), timedHolder (a client
// Timeout) with untimedHolder, waitingHolder (WaitTime) and givenHolder (a
// client also built out of sight) with holder, watchedHolder (a re-armed
// watchdog), onceHolder (no loop), stubbornHolder (the failure only
// logged) and idleHolder (nothing stopped) with untimedHolder and holder,
// and consullease's Probe (a method no loop calls) with its Renew, whose
// loop is leases.Store's, another package's; each guard deleted once and
// seen to fail.
//
// The le4001/mutexrenew package pairs the renewals that are no lock's
// with ones that are: progressReporter and statusPinger (Lock and Unlock of
// an embedded sync mutex) and watchedLock (its Heartbeat cancels the work)
// with storeLock; renewOrCancel, renewAndSettle (the loss handler called
// in a helper) and renewOrClose with renewBounded (a deferred cancel of its
// own timeout context) and renewRetried (a retry helper calling its
// operation); each guard deleted once and seen to fail.
//
// The le4001/flagsignal package pairs every silence of leadership sent as a
// value (flagsignal.go) with a report: exiting (the stop callback exits) and
// holding (the start callback waits on its context) with assigner, bound (a
// context handed to the goroutine), cancelling (a field context read),
// stopping (a stop channel received), ranging (a work channel ranged over)
// and announcing (the goroutine only logs) with assigner, literal with
// literalFree; the second start of the same work is not reported again.
// Each guard deleted once and seen to fail.
//
// The le4001/keptflag package pairs every silence of the kept leadership
// flag (keptflag.go) with a report: Clearing (Store(false) on the error
// path) and Resetting (the setter with false) with Seat; Cancelling (a
// cancel) and Handing (the error returned) with Counter; Unread (no read)
// with Counter; Plain (TryLock with no TTL) and Prober's Probe (no lock's
// name) with Prober's Acquire; Once (no loop) with Seat, whose round a loop
// calls; each guard deleted once and seen to fail.
//
// The le4001/lostcancel package pairs every silence of the work left
// running after the lease maintenance returns (lostcancel.go) with a
// report: Cancelling (the cancel called) with HalfCancelling,
// CancelOnFailure (the failing side followed only) with CancelOnSuccess,
// Returning with ReturningFenced, ParentWork (work on another context)
// with Run and Callback, Traced (a logger handed the context) with
// Callback, Kept (the cancel stored) and Handing (the loss
// sent) with Run, Signalled and FlaggedInside (the maintenance closes or
// clears a flag), Logged (no return in its loop), Once and OnceAfterWait
// (the renewal in no loop), OtherLock and NoAcquire (no acquire of the
// renewed lock), Flagged (a flag cleared on the path) with Closure, and
// Draining and Pausing (timer waits) with Parked; redsync's Serve needs
// the Context form of the acquire; each guard deleted once and seen to
// fail.
//
// The le4001/flaglease packages pair every silence of the lease whose loss
// is only a flag (flaglease.go, flagholder.go) with a report: in the lock
// client, CancelLease (the failure cancels the work's context) with
// LateCancelLease, CallbackLease (a callback) and Locker (whose own
// goroutine context is cancelled: still a fact) with Lease, BlindLease (no
// method reads the flag) with Lease; in the holder, checkedHandle (Held
// before each write) with fileHandle, checkingManager with manager (an
// interface field of one lock type), mixedManager (two types) with
// manager, copyChecked (Held in the loop) and checkedAfterLoop (Held after
// it) with copyCheckedOnce, cancelled with lateCancelled, watching (Lost
// selected on) with ignoring, handedOn (the lock escapes), blind and
// putOnce (no loop) with copyCheckedOnce; each guard deleted once and
// seen to fail.
func TestLeadershipLoss(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, leadershiploss.Analyzer, "le4001/leasekeeper", "le4001", "le4001/election", "le4001/platform", "le4001/controllers", "le4001/electorwork", "le4001/azure", "le4001/quietwrap", "le4001/quietuse", "le4001/renewloop", "le4001/renewheld", "le4001/renewheld/anyholder", "le4001/ownerloop", "le4001/renewdeadline", "le4001/unbounded", "le4001/unbounded/leases", "le4001/unbounded/consullease",
		"le4001/gated/config", "le4001/gated/provider", "le4001/gated/runner", "le4001/gated/providerrunner", "le4001/gated/providerexit",
		"le4001/gated/cmd", "le4001/gated/cmdexit", "le4001/gated/single", "le4001/gated/singleexit", "le4001/gated/clientgo", "le4001/gated/envtest", "le4001/session", "le4001/session/shopify", "le4001/session/retrylib", "le4001/session/uselib", "le4001/mutexrenew", "le4001/keptflag", "le4001/lostcancel", "le4001/flaglease/lockclient", "le4001/flaglease/holder", "le4001/latestart", "le4001/flagsignal")
}
