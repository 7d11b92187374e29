package elector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatesift/gatesift-vet/elector/internal/simhooks"
)

// Work is what a leader does while its term lasts. It must return soon
// (within Timing.StopBudget) after ctx is cancelled, and should pass
// lease.Token() with every write so the resource can fence out a stale leader.
// context.Cause(ctx) says why the term ended. ctx.Err and ctx.Done check the
// deadline on the candidate's clock when called, so a check made right before
// a write is current even just after the process was frozen; lease.Valid does
// the same. If work returns while the term lasts, the term is released and
// Run competes again after a jittered RetryInterval.
//
// The error work returns is reported in the Released event's Err, and the
// last one that is work's own (any error returned while the term lasted;
// after its context ended, one that does not wrap context.Canceled or the
// cause) is carried by Run's error when Run returns.
type Work func(ctx context.Context, lease Lease) error

var (
	// ErrDeadlinePassed is the cause of a leader context cancelled because no
	// renew succeeded within the safe window.
	ErrDeadlinePassed = errors.New("elector: leader deadline passed without a successful renew")
	// ErrResigned is the cause of a leader context cancelled by Resign.
	ErrResigned = errors.New("elector: resigned")
	// ErrShutdown is the cause of a leader context cancelled because Run's
	// context ended; the cause also wraps that context's cause
	// (context.Canceled, say).
	ErrShutdown = errors.New("elector: Run's context ended")
	// ErrAlreadyRunning is returned by a second concurrent Run.
	ErrAlreadyRunning = errors.New("elector: Run is already running")
	// ErrWorkRunning is wrapped (with ctx.Err()) in Run's error when Run's
	// context ended and the work had not returned by its hard deadline
	// (the leader deadline plus StopBudget): Run returns with the work still
	// running and its term not released.
	ErrWorkRunning = errors.New("elector: work still running after its stop budget")
	// ErrWorkReturned is the cause of a leader context cancelled because
	// the work returned while its term lasted (goroutines the work started
	// see it).
	ErrWorkReturned = errors.New("elector: work returned")
	// ErrNotLeading is returned by Resign when there is no term to resign.
	ErrNotLeading = errors.New("elector: not leading")
)

// Candidate competes for one lease name. Create it with New and call Run;
// one that never calls Run can still report the leader (Observe, Leader).
type Candidate struct {
	store     Store
	watcher   Watcher // nil when the store cannot watch
	name      string
	identity  string
	timing    Timing
	clock     Clock
	log       *slog.Logger
	onEvent   func(Event)
	observers []func(Event) // AddObserver's; guarded by mu
	unsafe    simhooks.Unsafe
	rnd       *rand.Rand // only used on Run's goroutine

	running atomic.Bool
	queue   chan Event // events waiting for the logger and callback; nil when neither is set
	dropped atomic.Uint64

	mu       sync.Mutex
	current  *Lease        // non-nil while the leader context is live
	resign   chan struct{} // closed by Resign; non-nil while leading
	ending   *termEnd      // the current term's end; non-nil while leading
	lastBeat time.Time     // last progress of the Run loop

	watchCh    <-chan struct{}
	watchTried time.Time
}

// New returns a candidate for the lease name in store. It validates the
// timing and fails with the reasons if it is inconsistent.
func New(store Store, name string, opts ...Option) (*Candidate, error) {
	if store == nil {
		return nil, errors.New("elector: nil store")
	}
	if name == "" {
		return nil, errors.New("elector: empty lease name")
	}
	c := &Candidate{
		store:    store,
		name:     name,
		identity: DefaultIdentity(),
		timing:   DefaultTiming(),
		clock:    realClock{},
		rnd:      rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	c.watcher, _ = store.(Watcher)
	for _, o := range opts {
		o(c)
	}
	if c.identity == "" {
		return nil, errors.New("elector: empty identity")
	}
	if err := c.timing.Validate(); err != nil {
		return nil, err
	}
	if err := checkLeaseBounds(store, c.timing); err != nil {
		return nil, err
	}
	return c, nil
}

// Name is the lease name.
func (c *Candidate) Name() string { return c.name }

// Identity is the owner identity this candidate competes as.
func (c *Candidate) Identity() string { return c.identity }

// Timing is the validated timing model.
func (c *Candidate) Timing() Timing { return c.timing }

// Lease returns the current lease while this candidate's leader context is
// live.
func (c *Candidate) Lease() (Lease, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil || !c.current.st.check() {
		return Lease{}, false
	}
	return *c.current, true
}

// Leader reads who holds the lease, without competing.
func (c *Candidate) Leader(ctx context.Context) (Record, error) { return c.store.Read(ctx, c.name) }

func (c *Candidate) setLeader(l *Lease, resign chan struct{}, end *termEnd) {
	c.mu.Lock()
	c.current, c.resign, c.ending = l, resign, end
	c.mu.Unlock()
}

func (c *Candidate) beat() {
	now := c.clock.Now()
	c.mu.Lock()
	c.lastBeat = now
	c.mu.Unlock()
}

// Run competes for the lease until ctx ends: acquire, run work with a context
// that ends before any other candidate can be granted the lease, renew in the
// background, release after work returns, and compete again. Store errors are
// retried with jittered backoff and reported as events; Run never gives up on
// its own. It returns once ctx has ended, the last term's work has returned
// and the term has been released, with an error wrapping ctx.Err() and, if
// the work ever failed in this Run, the last error of its own (see Work):
// "context canceled (the work last failed in term 7: ...)". So
// errors.Is(err, context.Canceled) still holds, and logging Run's error shows
// why the work kept failing. If the work has not returned by its hard
// deadline (the leader deadline plus StopBudget), Run gives up on it after
// reporting WorkOverran: its error wraps ErrWorkRunning too, with the work
// still running and the term left to expire in the store (the process should
// exit, or the work may overlap the next leader). A second concurrent Run
// returns ErrAlreadyRunning.
func (c *Candidate) Run(ctx context.Context, work Work) error {
	if work == nil {
		return errors.New("elector: nil work")
	}
	if !c.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer c.running.Store(false)
	defer c.startDelivery()()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	var (
		fails     int
		lastFail  error  // the work's last error of its own
		failToken uint64 // the term lastFail was returned in
		abandoned bool
	)
	for ctx.Err() == nil && !abandoned {
		c.beat()
		c.openWatch(watchCtx)
		term, sent, err := c.acquire(ctx)
		switch {
		case err == nil:
			fails = 0
			var (
				pause   time.Duration
				workErr error
			)
			pause, workErr, abandoned = c.lead(ctx, term, sent, work)
			if workErr != nil {
				lastFail, failToken = workErr, term.Token
			}
			if !abandoned {
				c.sleep(ctx, pause)
			}
		case ctx.Err() != nil:
		case errors.Is(err, ErrHeld):
			fails = 0
			c.standby(ctx)
		default:
			fails++
			wait := c.backoff(fails)
			c.emit(Event{Kind: AcquireFailed, Err: err, Reason: fmt.Sprintf("attempt %d failed; retrying in %v", fails, wait.Round(time.Millisecond))})
			c.sleep(ctx, wait)
		}
	}
	err := ctx.Err()
	if abandoned {
		err = fmt.Errorf("%w: %w", err, ErrWorkRunning)
	}
	if lastFail != nil {
		err = fmt.Errorf("%w (the work last failed in term %d: %w)", err, failToken, lastFail)
	}
	return err
}

// ownError is the work's error unless it only reports that the leader
// context ended: after the context ended, an error wrapping
// context.Canceled or the context's cause is the work stopping as told.
func ownError(err error, leaderCtx context.Context, ended bool) error {
	if err == nil || !ended {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.Cause(leaderCtx)) {
		return nil
	}
	return err
}

func (c *Candidate) acquire(ctx context.Context) (Term, time.Time, error) {
	cctx, cancel := context.WithTimeout(ctx, c.timing.SafeWindow())
	defer cancel()
	sent := c.clock.Now()
	term, err := c.store.Acquire(cctx, c.name, c.identity, c.timing.LeaseDuration)
	if err == nil && (term.Name != c.name || term.Holder != c.identity || term.Token == 0) {
		err = fmt.Errorf("elector: store granted a malformed term %+v", term)
	}
	return term, sent, err
}

// deadlineAfter is when the leader context must end after a successful
// request sent at sent and answered at answered.
func (c *Candidate) deadlineAfter(sent, answered time.Time) time.Time {
	anchor, window := sent, c.timing.SafeWindow()
	if c.unsafe.AnchorAtResponse {
		anchor = answered
	}
	if c.unsafe.NoMargin {
		window = c.timing.LeaseDuration
	}
	return anchor.Add(window)
}

// lead runs one term and returns how long to wait before competing again,
// the work's own error (see ownError), and whether it gave up waiting for
// the work because ctx ended.
func (c *Candidate) lead(ctx context.Context, term Term, sent time.Time, work Work) (pause time.Duration, own error, abandoned bool) {
	now := c.clock.Now()
	deadline := c.deadlineAfter(sent, now)
	if !now.Before(deadline) {
		c.emit(Event{Kind: Lost, Token: term.Token, Time: now, Reason: "acquire answered only after the deadline it grants"})
		c.release(ctx, term)
		return 0, nil, false
	}
	// The leader context is cancelled by this loop (or the deadline), not
	// by Run's context directly, so that a shutdown carries ErrShutdown.
	baseCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	st := newLeaseState(c.clock, deadline, baseCtx, cancel)
	leaderCtx := leaderContext{Context: baseCtx, st: st}
	lease := Lease{term: term, st: st}
	resign := make(chan struct{})
	end := &termEnd{done: make(chan struct{})}
	defer close(end.done)
	c.setLeader(&lease, resign, end)
	c.emit(Event{Kind: Acquired, Token: term.Token, Time: now, Deadline: st.deadline, Latency: now.Sub(sent), Reason: "granted"})

	workDone := make(chan error, 1)
	go func() { workDone <- work(leaderCtx, lease) }()
	expired := st.expiredCh
	go c.watchdog(baseCtx, st)

	rn := &renewer{c: c, ctx: ctx, term: term, st: st, results: make(chan renewResult), done: make(chan struct{}), lastOK: sent}
	rn.schedule(sent.Add(c.timing.RenewInterval).Sub(now))
	defer rn.stop()

	var (
		reason       string
		storeLost    bool // the store said the term is over: nothing to release
		missed       bool // the deadline passed; the term may still be current
		workReturned bool
		workErr      error
	)
loop:
	for {
		select {
		case <-expired:
			reason, missed = "no renew succeeded before the deadline", true
			if late := st.lateness(); late > c.freezeGap() {
				reason += fmt.Sprintf(" (noticed %v after it: the process was frozen)", late.Round(time.Millisecond))
			}
			c.emit(Event{Kind: Lost, Token: term.Token, Deadline: st.get(), Reason: reason})
			break loop
		case <-rn.due():
			if !c.clock.Now().Before(st.get()) {
				// Due only after the deadline (the process was paused, say):
				// the watchdog is ending the term.
				rn.next = nil
				continue
			}
			rn.start()
		case r := <-rn.results:
			c.beat()
			now := c.clock.Now()
			latency := now.Sub(r.sent)
			if !now.Before(st.get()) {
				// Answered at or after the deadline: the watchdog has
				// ended or is ending the term; let it report why.
				continue
			}
			switch {
			case errors.Is(r.err, ErrLost):
				reason, storeLost = "the store reports the term lost", true
				cancel(r.err)
				c.emit(Event{Kind: Lost, Token: term.Token, Time: now, Latency: latency, Err: r.err, Reason: reason})
				break loop
			case r.sent.Before(rn.lastOK):
				// An attempt older than the last success, abandoned or
				// redundant: it says nothing new.
			case r.err == nil:
				if !st.extend(now, c.deadlineAfter(r.sent, now)) {
					continue // the watchdog expired the term meanwhile
				}
				rn.lastOK = r.sent
				rn.stopAttempts()
				c.emit(Event{Kind: Renewed, Token: term.Token, Time: now, Deadline: st.get(), Latency: latency})
				rn.schedule(r.sent.Add(c.timing.RenewInterval).Sub(now))
			default:
				if rn.next == nil { // the unsafe single-attempt variant
					rn.schedule(c.jitter(c.timing.RetryInterval))
				}
				c.emit(Event{Kind: RenewFailed, Token: term.Token, Time: now, Deadline: st.get(), Latency: latency, Err: r.err,
					Reason: fmt.Sprintf("next attempt in %v", max(0, rn.nextAt.Sub(now)).Round(time.Millisecond))})
			}
		case <-resign:
			reason, pause = "resigned", 2*c.timing.RetryInterval
			cancel(ErrResigned)
			break loop
		case workErr = <-workDone:
			workReturned = true
			if st.hasExpired() { // the work returned because the deadline passed
				reason, missed = "no renew succeeded before the deadline", true
				own = ownError(workErr, leaderCtx, true)
				c.emit(Event{Kind: Lost, Token: term.Token, Deadline: st.get(), Reason: reason})
				break loop
			}
			own = workErr
			reason, pause = "work returned", c.jitter(c.timing.RetryInterval)
			if workErr != nil {
				reason = "work failed: " + workErr.Error()
			}
			cancel(ErrWorkReturned)
			break loop
		case <-ctx.Done():
			reason = "shutting down"
			cancel(fmt.Errorf("%w: %w", ErrShutdown, context.Cause(ctx)))
			break loop
		}
	}
	c.setLeader(nil, nil, nil)
	rn.stopAttempts()
	// The hook for the moment the leader context ends: observers see it
	// synchronously, before the work is waited for and the term released.
	c.emit(Event{Kind: Ended, Token: term.Token, Deadline: st.get(), Err: context.Cause(leaderCtx), Reason: reason})
	if !workReturned {
		var ok bool
		if workErr, ok = c.waitWork(ctx, workDone, st, term); !ok {
			end.err = ErrWorkRunning
			return 0, nil, true // shutting down with the work still running
		}
		own = ownError(workErr, leaderCtx, true)
	}
	if storeLost {
		end.err = context.Cause(leaderCtx)
		if c.checkIdentity(ctx, term) {
			pause = c.timing.LeaseDuration
		}
		return pause, own, false
	}
	if missed {
		end.err = ErrDeadlinePassed
	}
	// After a missed deadline the term may still be current in the store;
	// releasing it lets a standby in without waiting for expiry.
	if err := c.release(ctx, term); err == nil {
		c.emit(Event{Kind: Released, Token: term.Token, Reason: reason, Err: workErr})
	} else if !missed {
		end.err = fmt.Errorf("elector: release failed; the lease will expire: %w", err)
		c.emit(Event{Kind: ReleaseFailed, Token: term.Token, Err: err, Reason: reason + "; the lease will expire"})
	}
	return pause, own, false
}

// watchdog ends the term at the deadline in st, following renewals. It
// runs apart from the lead loop so a slow event callback, logger or metrics
// registry cannot delay the cancellation. It stops when the leader context
// ends for another reason.
func (c *Candidate) watchdog(leaderCtx context.Context, st *leaseState) {
	for {
		d := st.get()
		t := c.clock.NewTimer(d.Sub(c.clock.Now()))
		select {
		case <-t.C():
			if st.expire(d) {
				return
			}
			// Renewed while the timer ran: wait for the new deadline.
		case <-leaderCtx.Done():
			t.Stop()
			return
		}
	}
}

// freezeGap is how late a timer must fire to count as a freeze of the
// process (SIGSTOP, a VM pause) rather than scheduling delay.
func (c *Candidate) freezeGap() time.Duration {
	return max(c.timing.StopBudget/2, 50*time.Millisecond)
}

// waitWork waits for the work to return and returns its error. Past the hard deadline (the leader
// deadline plus stop budget) the lease may belong to another candidate, so it
// reports WorkOverran; it keeps waiting, because starting another term while
// this work runs would make this process overlap itself, unless Run's context
// has ended, in which case it gives up and reports false.
//
// A process frozen around the deadline notices the deadline and the hard
// deadline only when it resumes, at the same moment as its work notices the
// cancellation: the work had no chance to stop. When the expiry or the hard
// deadline was noticed late by more than freezeGap, the work gets its stop
// budget again from the moment of resuming, and the event is Frozen (the
// process was not running; another leader may have been elected meanwhile)
// rather than WorkOverran (the work was slow), unless it overruns that too.
func (c *Candidate) waitWork(ctx context.Context, workDone <-chan error, st *leaseState, term Term) (workErr error, ok bool) {
	hard := st.get().Add(c.timing.StopBudget)
	t := c.clock.NewTimer(hard.Sub(c.clock.Now()))
	defer t.Stop()
	select {
	case err := <-workDone:
		return err, true
	case <-t.C():
	}
	now := c.clock.Now()
	if gap := max(st.lateness(), now.Sub(hard)); gap > c.freezeGap() {
		again := c.clock.NewTimer(c.timing.StopBudget)
		defer again.Stop()
		select {
		case workErr = <-workDone:
			c.emit(Event{Kind: Frozen, Token: term.Token, Deadline: st.get(), Reason: fmt.Sprintf(
				"the process was frozen around its deadline (noticed %v late); the work returned %v after it resumed; "+
					"another leader may have been elected meanwhile: only fenced writes are safe",
				gap.Round(time.Millisecond), c.clock.Now().Sub(now).Round(time.Microsecond))})
			return workErr, true
		case <-again.C():
			hard = now.Add(c.timing.StopBudget)
		}
	}
	c.emit(Event{Kind: WorkOverran, Token: term.Token, Deadline: st.get(), Reason: fmt.Sprintf(
		"work did not return within the stop budget (%v, ended %v ago) after its context ended; another leader may be running",
		c.timing.StopBudget, c.clock.Now().Sub(hard).Round(time.Millisecond))})
	select {
	case err := <-workDone:
		return err, true
	case <-ctx.Done():
		return nil, false
	}
}

// release ends term in the store, also when Run's context has ended.
func (c *Candidate) release(ctx context.Context, term Term) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timing.RetryInterval)
	defer cancel()
	return c.store.Release(rctx, term)
}

// checkIdentity reports (and emits) whether another live process holds the
// lease under this candidate's identity, after term was lost.
func (c *Candidate) checkIdentity(ctx context.Context, term Term) bool {
	rctx, cancel := context.WithTimeout(ctx, c.timing.RetryInterval)
	defer cancel()
	rec, err := c.store.Read(rctx, c.name)
	if err != nil || !rec.Held || rec.Holder != c.identity || rec.Token == term.Token {
		return false
	}
	c.emit(Event{Kind: IdentityConflict, Token: rec.Token, Reason: fmt.Sprintf(
		"term %d was taken over by token %d under the same identity: two live processes share identity %q; "+
			"give each a unique identity", term.Token, rec.Token, c.identity)})
	return true
}

// standby waits for a watch wakeup or the next jittered poll.
func (c *Candidate) standby(ctx context.Context) {
	t := c.clock.NewTimer(c.jitter(c.timing.RetryInterval))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	case _, ok := <-c.watchCh:
		if !ok {
			c.watchCh = nil
		}
	}
}

// openWatch (re)opens the store's watch, at most once per retry interval.
func (c *Candidate) openWatch(ctx context.Context) {
	if c.watcher == nil || c.watchCh != nil {
		return
	}
	now := c.clock.Now()
	if !c.watchTried.IsZero() && now.Sub(c.watchTried) < c.timing.RetryInterval {
		return
	}
	c.watchTried = now
	ch, err := c.watcher.Watch(ctx, c.name)
	if err != nil {
		if c.log != nil {
			c.log.Warn("elector: watch failed; polling", "lease", c.name, "error", err)
		}
		return
	}
	c.watchCh = ch
}

func (c *Candidate) jitter(d time.Duration) time.Duration {
	return d + time.Duration(c.rnd.Float64()*jitterFraction*float64(d))
}

// backoff doubles the retry interval per consecutive failure, up to the lease
// duration, so a store outage is not hammered but recovery is noticed soon.
func (c *Candidate) backoff(fails int) time.Duration {
	d := c.timing.RetryInterval
	for i := 1; i < fails && d < c.timing.LeaseDuration; i++ {
		d *= 2
	}
	return c.jitter(min(d, c.timing.LeaseDuration))
}

func (c *Candidate) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := c.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}
