// Package notime imports no scheduler and no store: it calls a scheduling
// helper of another package, which the helper package's fact reveals.
package notime

import (
	"context"

	"le1001/every"
	"le1001/store"
)

func Start(ctx context.Context, s *store.Store) {
	every.Run(ctx, 3600e9, func(ctx context.Context) { // want `every.Run runs func literal on every replica every 1h0m0s: it inserts into table charges`
		s.ChargeDue(ctx)
	})
}
