package elector

import (
	"log/slog"
	"math/rand/v2"

	"github.com/gatesift/gatesift-vet/elector/internal/simhooks"
)

// Option configures a Candidate.
type Option func(*Candidate)

// WithIdentity sets the owner identity (default DefaultIdentity()). Two live
// processes must never share one; see DefaultIdentity.
func WithIdentity(id string) Option { return func(c *Candidate) { c.identity = id } }

// WithTiming sets the timing model (default DefaultTiming()).
func WithTiming(t Timing) Option { return func(c *Candidate) { c.timing = t } }

// WithLogger logs every event to l (Renewed at debug level). Default: no logs.
func WithLogger(l *slog.Logger) Option { return func(c *Candidate) { c.log = l } }

// WithEvents calls fn with every event, in order, on a goroutine of its own:
// a slow fn never delays renewals. Up to 256 events wait for it; beyond that
// events are dropped and counted (Candidate.DroppedEvents, and
// elector_events_dropped_total with elector/prommetrics). Run returns after fn has seen every queued
// event. The logger (WithLogger) is fed the same way.
func WithEvents(fn func(Event)) Option { return func(c *Candidate) { c.onEvent = fn } }

// WithClock replaces the real clock, for tests and simulation. The leader
// deadline, renew schedule and waits follow clk; per-call timeouts on store
// requests use the runtime's timers.
func WithClock(clk Clock) Option { return func(c *Candidate) { c.clock = clk } }

func init() {
	simhooks.WithUnsafe = func(u simhooks.Unsafe) any {
		return Option(func(c *Candidate) { c.unsafe = u })
	}
	simhooks.WithSeed = func(seed uint64) any {
		return Option(func(c *Candidate) { c.rnd = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) })
	}
}
