// Package electorwork runs leader work with this project's elector.
package electorwork

import (
	"context"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

type compactor struct{}

func (c *compactor) Run(ctx context.Context, token uint64) error { <-ctx.Done(); return nil }

// The work ignores the elector's context.
func runDetached(ctx context.Context, cand *elector.Candidate, c *compactor) error {
	return cand.Run(ctx, func(_ context.Context, lease elector.Lease) error {
		return c.Run(ctx, lease.Token()) // want `leader callback starts c.Run with ctx, a context captured from runDetached`
	})
}

// Correct: the work runs on the leader context.
func runBound(ctx context.Context, cand *elector.Candidate, c *compactor) error {
	return cand.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
		ctx, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		return c.Run(ctx, lease.Token())
	})
}
