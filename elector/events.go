package elector

import (
	"context"
	"log/slog"
	"time"
)

// EventKind says what happened to a candidate.
type EventKind int

const (
	// Acquired: the candidate was granted a term and its work starts.
	Acquired EventKind = iota + 1
	// Renewed: a renew succeeded and the deadline moved.
	Renewed
	// RenewFailed: a renew failed for a reason other than loss (a network
	// error, a timeout); it is retried until the deadline.
	RenewFailed
	// Lost: the leader context was cancelled because the term ended without a
	// graceful release: the store said ErrLost, or the deadline passed.
	Lost
	// Released: the work returned and the term was released.
	Released
	// ReleaseFailed: releasing the term failed; the lease will expire.
	ReleaseFailed
	// AcquireFailed: an Acquire failed for a reason other than ErrHeld; Run
	// backs off and retries.
	AcquireFailed
	// IdentityConflict: another live process uses this candidate's identity.
	IdentityConflict
	// WorkOverran: the work had not returned when the lease may have passed
	// to another candidate (deadline plus stop budget): the work was slow to
	// stop.
	WorkOverran
	// Frozen: the process was not running around its deadline (SIGSTOP, a
	// VM pause): the deadline or the hard deadline was noticed late, and the
	// work returned within its stop budget after the process resumed. The
	// term was over by then and another leader may have been elected; only
	// fenced writes made before the freeze are safe.
	Frozen
	// Ended: the leader context of a term ended, whatever the reason; Err
	// is its cause (ErrResigned, ErrShutdown, ErrDeadlinePassed, an error
	// wrapping ErrLost, or ErrWorkReturned) and Reason says it in words.
	// It is the hook for the moment leadership ends: emitted once per term
	// whose work started, by Run as soon as the context ended (right after
	// Lost when the term was lost), before Run waits for the work to return
	// and before the term is released. An AddObserver callback sees it
	// synchronously: Run neither waits for the work nor releases the term
	// until the callback has returned. (The work's own context.AfterFunc
	// runs at the cancellation itself, on a goroutine of its own.)
	Ended
)

var kindNames = map[EventKind]string{
	Acquired:         "acquired",
	Renewed:          "renewed",
	RenewFailed:      "renew_failed",
	Lost:             "lost",
	Released:         "released",
	ReleaseFailed:    "release_failed",
	AcquireFailed:    "acquire_failed",
	IdentityConflict: "identity_conflict",
	WorkOverran:      "work_overran",
	Frozen:           "frozen",
	Ended:            "ended",
}

func (k EventKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "unknown"
}

// Event is one observable step of a candidate.
type Event struct {
	Kind     EventKind
	Lease    string // lease name
	Identity string // this candidate's identity
	Token    uint64 // the term's token; 0 when no term is involved
	Reason   string // why, in words
	// Err is the store's error, if any; on Released the work's error, on
	// Ended the leader context's cause.
	Err error
	// Time is when the event happened, on the candidate's clock.
	Time time.Time
	// Deadline, when set, is the leader deadline of the term the event is
	// about (when its context is or was cancelled unless renewed), on every
	// kind, WorkOverran included; zero when none applies.
	Deadline time.Time
	// Latency is the store round trip that led to the event, if any.
	Latency time.Duration
}

func (k EventKind) level() slog.Level {
	switch k {
	case Renewed:
		return slog.LevelDebug
	case Acquired, Released, Ended:
		return slog.LevelInfo
	case IdentityConflict, WorkOverran:
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}

// eventQueue is how many events may wait for a slow logger or callback
// before further ones are dropped (and counted).
const eventQueue = 256

// emit passes e to the observers and queues it for the logger and the
// event callback, without blocking: a slow log sink or callback must not
// delay renewals. When the queue is full the event is dropped and counted
// (DroppedEvents). It runs on Run's goroutine.
func (c *Candidate) emit(e Event) {
	e.Lease = c.name
	e.Identity = c.identity
	if e.Time.IsZero() {
		e.Time = c.clock.Now()
	}
	c.mu.Lock()
	observers := c.observers
	c.mu.Unlock()
	for _, fn := range observers {
		fn(e)
	}
	if c.queue == nil {
		return
	}
	select {
	case c.queue <- e:
	default:
		c.dropped.Add(1)
	}
}

// AddObserver adds fn, called with every event synchronously on Run's
// goroutine, before the event is queued for the logger and the WithEvents
// callback, and never dropped. fn must return at once (increment a counter,
// say: elector/prommetrics uses it); anything slower belongs in WithEvents.
// Observers added while Run runs see the events after they were added.
func (c *Candidate) AddObserver(fn func(Event)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observers = append(c.observers[:len(c.observers):len(c.observers)], fn)
}

// startDelivery starts the goroutine that logs queued events and passes
// them to the callback, in order; the returned func closes the queue and
// waits until every queued event was delivered.
func (c *Candidate) startDelivery() (finish func()) {
	if c.log == nil && c.onEvent == nil {
		return func() {}
	}
	q := make(chan Event, eventQueue)
	c.queue = q
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range q {
			c.deliver(e)
		}
	}()
	return func() {
		c.queue = nil
		close(q)
		<-done
	}
}

// DroppedEvents is how many events were not logged or passed to the
// WithEvents callback because it fell behind by more than 256 events.
func (c *Candidate) DroppedEvents() uint64 { return c.dropped.Load() }

func (c *Candidate) deliver(e Event) {
	if c.log != nil {
		attrs := []slog.Attr{
			slog.String("lease", e.Lease),
			slog.String("identity", e.Identity),
		}
		if e.Token != 0 {
			attrs = append(attrs, slog.Uint64("token", e.Token))
		}
		if e.Reason != "" {
			attrs = append(attrs, slog.String("reason", e.Reason))
		}
		if e.Err != nil {
			attrs = append(attrs, slog.Any("error", e.Err))
		}
		if !e.Deadline.IsZero() {
			attrs = append(attrs, slog.Duration("until_deadline", e.Deadline.Sub(e.Time)))
		}
		if e.Latency != 0 {
			attrs = append(attrs, slog.Duration("latency", e.Latency))
		}
		c.log.LogAttrs(context.Background(), e.Kind.level(), "elector: "+e.Kind.String(), attrs...)
	}
	if c.onEvent != nil {
		c.onEvent(e)
	}
}
