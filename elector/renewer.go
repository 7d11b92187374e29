package elector

import (
	"context"
	"time"
)

type renewResult struct {
	sent time.Time
	err  error
}

// renewer runs the renew attempts of one term. An attempt is bounded by
// maxAttempt (or the deadline, if sooner), and while no attempt has
// succeeded a new one starts every jittered RetryInterval whether or not the
// earlier ones have answered: a request that hangs (a half-open connection,
// a client that ignores its context) costs one retry interval, not the term,
// and the attempts Timing.RenewAttempts counts all happen. Answers older
// than the last success are ignored, except ErrLost, which always ends the
// term.
type renewer struct {
	c       *Candidate
	ctx     context.Context
	term    Term
	st      *leaseState
	results chan renewResult
	done    chan struct{} // closed when the term ends; attempts stop sending
	cancels []context.CancelFunc
	lastOK  time.Time // send time of the last successful acquire or renew
	next    Timer     // when the next attempt starts; nil while none is due
	nextAt  time.Time
}

func (r *renewer) schedule(d time.Duration) {
	if r.next != nil {
		r.next.Stop()
	}
	r.next, r.nextAt = r.c.clock.NewTimer(d), r.c.clock.Now().Add(d)
}

func (r *renewer) due() <-chan time.Time {
	if r.next == nil {
		return nil
	}
	return r.next.C()
}

// maxAttempt bounds one renew attempt: two retry intervals, so that a slow
// but healthy server still answers while a hung request is abandoned (and,
// with pgx or go-redis with context timeouts, its connection dropped).
func (r *renewer) maxAttempt() time.Duration { return 2 * r.c.timing.RetryInterval }

// start sends one renew attempt and, unless the unsafe single-attempt
// variant is selected, schedules the next one a jittered RetryInterval later.
func (r *renewer) start() {
	c := r.c
	sent := c.clock.Now()
	bound := r.st.get().Sub(sent)
	if !c.unsafe.RenewWholeWindow {
		bound = min(bound, r.maxAttempt())
	}
	rctx, cancel := context.WithTimeout(r.ctx, bound)
	r.cancels = append(r.cancels, cancel)
	go func() {
		err := c.store.Renew(rctx, r.term, c.timing.LeaseDuration)
		cancel()
		select {
		case r.results <- renewResult{sent: sent, err: err}:
		case <-r.done:
		}
	}()
	if c.unsafe.RenewWholeWindow {
		r.next = nil // the old behaviour: retry only after this attempt answered
		return
	}
	r.schedule(c.jitter(c.timing.RetryInterval))
}

// stopAttempts abandons every attempt in flight.
func (r *renewer) stopAttempts() {
	for _, cancel := range r.cancels {
		cancel()
	}
	r.cancels = nil
}

func (r *renewer) stop() {
	r.stopAttempts()
	if r.next != nil {
		r.next.Stop()
	}
	close(r.done)
}
