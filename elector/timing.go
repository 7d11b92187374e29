package elector

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Timing is the one timing model of a candidate. All durations are measured on
// the candidate's monotonic clock, except LeaseDuration, which is the ttl the
// store enforces on its own clock.
//
// After a successful Acquire or Renew request sent at time s, the store holds
// the lease for this candidate at least until s+LeaseDuration by the store's
// clock (the store can only start counting after the request was sent). The
// candidate cancels the leader context at
//
//	deadline = s + LeaseDuration - DriftBound - StopBudget
//
// so that, even if the candidate's clock runs slow against the store's by up to
// DriftBound over one lease, the work has StopBudget to stop before any other
// candidate can be granted the lease.
type Timing struct {
	// LeaseDuration is the ttl asked of the store. It bounds crash failover:
	// a vanished leader's lease frees LeaseDuration after its last renew.
	LeaseDuration time.Duration
	// RenewInterval is how long after a successful renew was sent the next
	// one is sent.
	RenewInterval time.Duration
	// RetryInterval is how often a standby polls, and how often a leader
	// starts another renew attempt while none has succeeded since the
	// renew was due, whether or not the earlier attempts have answered (a
	// request hung on a half-open connection costs one retry interval,
	// not the term). Each attempt is abandoned after two retry intervals
	// or at the deadline, whichever is sooner. Waits are jittered up to
	// +20%.
	RetryInterval time.Duration
	// DriftBound is the most the candidate's clock may fall behind the store's
	// over one LeaseDuration (clock rate error, VM steal, NTP slew). It does
	// not cover a step of the store's wall clock or a suspend of the
	// candidate's machine; see the package documentation, "Clocks".
	DriftBound time.Duration
	// StopBudget is how long the work may take to stop after its context is
	// cancelled. Work that overruns it may overlap the next leader; only
	// fencing tokens protect against that.
	StopBudget time.Duration
}

// MinRenewAttempts is the number of renew attempts Validate requires to fit
// between the first renew and the deadline, so that one lost, slow or hung
// request does not cost the leadership. Attempts start on schedule even
// while earlier ones hang, so the count holds for hung requests too.
const MinRenewAttempts = 2

// jitterFraction is the most a wait is stretched at random, so that standbys
// and retries spread out instead of stampeding the store together.
const jitterFraction = 0.2

// DefaultTiming returns the defaults:
//
//   - 15 s lease: a crashed leader is replaced within ~17.4 s, the same order
//     as client-go and Consul, while tolerating multi-second store hiccups;
//   - 5 s renew: three renews per lease, and with a 2 s retry there is room
//     for four attempts before the deadline;
//   - 2 s retry: standbys without a watch notice a free lease within 2.4 s,
//     and the load on the store stays small;
//   - 500 ms drift: 3.3% of the lease, far above NTP-disciplined clock rate
//     error (well under 0.1%), to absorb VM steal and slewing;
//   - 1 s stop budget: enough for work that checks its context between steps.
func DefaultTiming() Timing {
	return Timing{
		LeaseDuration: 15 * time.Second,
		RenewInterval: 5 * time.Second,
		RetryInterval: 2 * time.Second,
		DriftBound:    500 * time.Millisecond,
		StopBudget:    time.Second,
	}
}

// SafeWindow is how long after sending a successful acquire or renew the leader
// context stays live without another successful renew.
func (t Timing) SafeWindow() time.Duration {
	return t.LeaseDuration - t.DriftBound - t.StopBudget
}

// maxJitter is the longest a jittered wait of d can last.
func maxJitter(d time.Duration) time.Duration {
	return d + time.Duration(float64(d)*jitterFraction)
}

// RenewAttempts is how many renew attempts fit between the first renew and the
// deadline when a new attempt starts at most one jittered RetryInterval after
// the previous one (whether it failed, hangs or is still on its way).
func (t Timing) RenewAttempts() int {
	spare := t.SafeWindow() - t.RenewInterval
	if spare <= 0 || t.RetryInterval <= 0 {
		return 0
	}
	return 1 + int((spare-1)/maxJitter(t.RetryInterval))
}

// Validate reports every inconsistency of the model, each with the reason it
// matters.
func (t Timing) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if t.LeaseDuration <= 0 {
		bad("lease duration must be positive, got %v", t.LeaseDuration)
	}
	if t.RenewInterval <= 0 {
		bad("renew interval must be positive, got %v", t.RenewInterval)
	}
	if t.RetryInterval <= 0 {
		bad("retry interval must be positive, got %v", t.RetryInterval)
	}
	if t.DriftBound < 0 {
		bad("drift bound must not be negative, got %v", t.DriftBound)
	}
	if t.StopBudget < 0 {
		bad("stop budget must not be negative, got %v", t.StopBudget)
	}
	if len(errs) > 0 {
		return fmt.Errorf("elector: invalid timing: %w", errors.Join(errs...))
	}
	if t.SafeWindow() <= 0 {
		bad("drift bound (%v) + stop budget (%v) must be less than the lease duration (%v): "+
			"otherwise the leader's context would end before the lease is usable",
			t.DriftBound, t.StopBudget, t.LeaseDuration)
	} else if t.RenewInterval >= t.SafeWindow() {
		bad("renew interval (%v) must be shorter than the safe window (lease %v - drift %v - stop budget %v = %v): "+
			"otherwise the leader's context ends before the first renew",
			t.RenewInterval, t.LeaseDuration, t.DriftBound, t.StopBudget, t.SafeWindow())
	} else if n := t.RenewAttempts(); n < MinRenewAttempts {
		bad("renew interval (%v) and retry interval (%v, jittered to %v) leave room for only %d renew attempt(s) "+
			"before the deadline (%v after each successful renew); need at least %d so one failed request "+
			"does not lose the lease: shorten the renew or retry interval or lengthen the lease",
			t.RenewInterval, t.RetryInterval, maxJitter(t.RetryInterval), n, t.SafeWindow(), MinRenewAttempts)
	}
	if len(errs) > 0 {
		return fmt.Errorf("elector: invalid timing: %w", errors.Join(errs...))
	}
	return nil
}

// CrashFailover is the worst-case time from a leader vanishing to a standby
// being granted the lease, assuming the store is reachable: the lease runs
// out LeaseDuration after the last renew, which may have been sent just before
// the crash, and a polling standby asks again within the jittered
// RetryInterval. Stores that round the ttl up add their rounding.
func (t Timing) CrashFailover() time.Duration {
	return t.LeaseDuration + maxJitter(t.RetryInterval)
}

// GracefulHandover is the worst-case time from a Resign (or shutdown) to a
// standby being granted the lease: the work has StopBudget to return, then the
// lease is released and a standby wakes through the store's watch (watch) or
// its next jittered poll.
func (t Timing) GracefulHandover(watch bool) time.Duration {
	if watch {
		return t.StopBudget
	}
	return t.StopBudget + maxJitter(t.RetryInterval)
}

// String summarises the model on one line.
func (t Timing) String() string {
	return fmt.Sprintf("lease %v, renew every %v, retry %v, drift bound %v, stop budget %v",
		t.LeaseDuration, t.RenewInterval, t.RetryInterval, t.DriftBound, t.StopBudget)
}

// Explain prints the model and what it implies, one fact per line.
func (t Timing) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timing: %v\n", t)
	if err := t.Validate(); err != nil {
		fmt.Fprintf(&b, "INVALID: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "leader context lives %v after each successful renew was sent (lease - drift - stop budget)\n", t.SafeWindow())
	fmt.Fprintf(&b, "renew attempts before the deadline: %d\n", t.RenewAttempts())
	fmt.Fprintf(&b, "tolerated clock rate error vs the store: %.2f%%\n", 100*float64(t.DriftBound)/float64(t.LeaseDuration))
	fmt.Fprintf(&b, "worst-case crash failover: %v (lease + jittered retry; plus the store's ttl rounding)\n", t.CrashFailover())
	fmt.Fprintf(&b, "worst-case graceful handover: %v with a watching store, %v polling (plus store round trips)\n",
		t.GracefulHandover(true), t.GracefulHandover(false))
	return b.String()
}
