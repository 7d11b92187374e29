// Package quietwrap wraps client-go's leader election for its callers, in a
// directory whose .gatesift.yaml disables LE4001.
package quietwrap

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Lead runs work while this replica holds the lock; losing it is only logged.
func Lead(ctx context.Context, lock resourcelock.Interface, work func(context.Context)) { // want Lead:"forwards param 2 as OnStartedLeading \\(stop -1, stops work false\\)"
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: work,
			OnStoppedLeading: func() { klog.Info("lost the lease") },
		},
	})
}

type indexer struct{}

func (indexer) Run(ctx context.Context) { <-ctx.Done() }

// Disabled here: the same mistake LE4001 reports in le4001/quietuse is not
// reported in this package, whose configuration turns the rule off.
func leadIndexer(ctx context.Context, lock resourcelock.Interface) {
	Lead(ctx, lock, func(leaderCtx context.Context) {
		indexer{}.Run(ctx)
	})
}
