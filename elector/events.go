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
	// to another candidate (deadline plus stop budget).
	WorkOverran
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
	Err      error  // the store error, if any
	// Time is when the event happened, on the candidate's clock.
	Time time.Time
	// Deadline is when the leader context is (or was) cancelled; zero when
	// not leading.
	Deadline time.Time
	// Latency is the store round trip that led to the event, if any.
	Latency time.Duration
}

func (k EventKind) level() slog.Level {
	switch k {
	case Renewed:
		return slog.LevelDebug
	case Acquired, Released:
		return slog.LevelInfo
	case IdentityConflict, WorkOverran:
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}

// emit logs e, updates metrics and calls the event callback, in that order.
// It runs on Run's goroutine.
func (c *Candidate) emit(e Event) {
	e.Lease = c.name
	e.Identity = c.identity
	if e.Time.IsZero() {
		e.Time = c.clock.Now()
	}
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
	if c.metrics != nil {
		c.metrics.observe(e)
	}
	if c.onEvent != nil {
		c.onEvent(e)
	}
}
