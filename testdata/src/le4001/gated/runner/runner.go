// Package runner applies infrastructure; it waits for the Elected channel of
// its configuration, not knowing who closes it.
package runner

import (
	"context"

	"le4001/gated/config"
)

type applier struct{}

func (applier) Run(ctx context.Context)          { <-ctx.Done() }
func (applier) RunPrune(ctx context.Context)     { <-ctx.Done() }
func (applier) ServeMetrics(ctx context.Context) { <-ctx.Done() }

// Runner applies infrastructure once this replica leads.
type Runner struct {
	config.Server
	apply applier
}

// New returns a runner for cfg.
func New(cfg *config.Server) *Runner { return &Runner{Server: *cfg} }

// Start waits for leadership, then applies on the runner's own ctx.
func (r *Runner) Start(ctx context.Context) error { // want Start:"gated work: r.apply.Run on ctx, a context captured from Start after le4001/gated/config.Server.Elected; r.apply.RunPrune on ctx, a context captured from Start after le4001/gated/config.Server.Elected"
	begin := func() {
		go r.apply.Run(ctx)
		go r.apply.ServeMetrics(ctx) // per-replica plumbing: not leader work
		go r.apply.RunPrune(ctx)
		<-ctx.Done()
	}
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-r.Elected:
			begin()
		}
	}()
	return nil
}

// Warmer refreshes a local cache once the caches are synced, on every
// replica.
type Warmer struct {
	config.Server
	apply applier
}

// Start waits for Synced, which no election closes: a candidate only.
func (w *Warmer) Start(ctx context.Context) error { // want Start:"gated work: w.apply.Run on ctx, a context captured from Start after le4001/gated/config.Server.Synced"
	go func() {
		<-w.Synced
		w.apply.Run(ctx)
	}()
	return nil
}

// NewWarmer returns a warmer for cfg.
func NewWarmer(cfg *config.Server) *Warmer { return &Warmer{Server: *cfg} }
