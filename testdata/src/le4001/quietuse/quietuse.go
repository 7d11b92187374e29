// Package quietuse calls a leader-election wrapper whose package disables
// LE4001: the wrapper's fact still tells this package what Lead does.
package quietuse

import (
	"context"

	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"le4001/quietwrap"
)

type compactor struct{}

func (compactor) Run(ctx context.Context) { <-ctx.Done() }

func start(ctx context.Context, lock resourcelock.Interface) {
	quietwrap.Lead(ctx, lock, func(leaderCtx context.Context) {
		compactor{}.Run(ctx) // want `leader callback starts Run with ctx, a context captured from start, not the leader context leaderCtx`
	})
}
