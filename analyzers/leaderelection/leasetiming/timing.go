package leasetiming

import (
	"fmt"
	"time"
)

// timing mirrors github.com/gatesift/gatesift-vet/elector.Timing and the
// checks of its Validate method, so that a literal is reported exactly when
// elector.New would reject it. Keep it in step with elector/timing.go.
type timing struct {
	lease, renew, retry, drift, stop int64
}

const (
	minRenewAttempts = 2   // elector.MinRenewAttempts
	jitterFraction   = 0.2 // elector's jitterFraction
)

type problem struct {
	field string
	msg   string
}

func (t timing) String() string {
	return fmt.Sprintf("{lease %v, renew %v, retry %v, drift %v, stop budget %v}",
		time.Duration(t.lease), time.Duration(t.renew), time.Duration(t.retry), time.Duration(t.drift), time.Duration(t.stop))
}

func maxJitter(d int64) int64 { return d + int64(time.Duration(float64(d)*jitterFraction)) }

func (t timing) safeWindow() int64 { return t.lease - t.drift - t.stop }

func (t timing) renewAttempts() int64 {
	spare := t.safeWindow() - t.renew
	if spare <= 0 || t.retry <= 0 {
		return 0
	}
	return 1 + (spare-1)/maxJitter(t.retry)
}

func (t timing) problems() []problem {
	var ps []problem
	if t.lease <= 0 {
		ps = append(ps, problem{"LeaseDuration", fmt.Sprintf("the lease duration must be positive, got %v", time.Duration(t.lease))})
	}
	if t.renew <= 0 {
		ps = append(ps, problem{"RenewInterval", fmt.Sprintf("the renew interval must be positive, got %v", time.Duration(t.renew))})
	}
	if t.retry <= 0 {
		ps = append(ps, problem{"RetryInterval", fmt.Sprintf("the retry interval must be positive, got %v", time.Duration(t.retry))})
	}
	if t.drift < 0 {
		ps = append(ps, problem{"DriftBound", fmt.Sprintf("the drift bound must not be negative, got %v", time.Duration(t.drift))})
	}
	if t.stop < 0 {
		ps = append(ps, problem{"StopBudget", fmt.Sprintf("the stop budget must not be negative, got %v", time.Duration(t.stop))})
	}
	if len(ps) > 0 {
		return ps
	}
	sw := t.safeWindow()
	switch {
	case sw <= 0:
		ps = append(ps, problem{"LeaseDuration", fmt.Sprintf(
			"drift bound + stop budget (%v) must be less than the lease duration (%v): otherwise the leader's context would end before the lease is usable; lengthen the lease",
			time.Duration(t.drift+t.stop), time.Duration(t.lease))})
	case t.renew >= sw:
		ps = append(ps, problem{"RenewInterval", fmt.Sprintf(
			"the renew interval (%v) must be shorter than the safe window (lease - drift - stop budget = %v): otherwise the leader's context ends before the first renew and leadership flaps on every replica; renew more often",
			time.Duration(t.renew), time.Duration(sw))})
	default:
		if n := t.renewAttempts(); n < minRenewAttempts {
			ps = append(ps, problem{"RetryInterval", fmt.Sprintf(
				"renew %v and retry %v (jittered to %v) leave room for only %d renew attempt(s) before the deadline (%v after each renew); one lost request would cost the lease: shorten the renew or retry interval, or lengthen the lease",
				time.Duration(t.renew), time.Duration(t.retry), time.Duration(maxJitter(t.retry)), n, time.Duration(sw))})
		}
	}
	return ps
}
