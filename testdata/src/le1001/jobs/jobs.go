// Package jobs uses the store and the every helper from other packages.
package jobs

import (
	"context"
	"time"

	"le1001/every"
	"le1001/store"
)

func Start(ctx context.Context, s *store.Store) {
	go every.Run(ctx, time.Hour, func(ctx context.Context) { // want `every.Run runs func literal on every replica every 1h0m0s: it inserts into table charges \(via store.\(\*Store\).ChargeDue\)`
		s.ChargeDue(ctx)
	})
	go every.Run(ctx, time.Minute, func(ctx context.Context) { // idempotent: reported only under strict
		s.PurgeExpired(ctx)
	})
	go every.Run(ctx, time.Second, func(ctx context.Context) { // a SKIP LOCKED claim splits the work
		s.ClaimBatch(ctx)
	})
	go every.Run(ctx, 10*time.Second, func(ctx context.Context) { // read-only
		s.Counts(ctx)
	})
}
