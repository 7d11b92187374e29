package le4001

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

// The leader context is replaced by the process-wide one on one branch:
// on that path the work outlives the lease.
func runReassigned(r *reconciler, detach bool) {
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("r1"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if detach {
					ctx = context.Background()
				}
				go r.RunWithContext(ctx) // want `leader callback starts r.RunWithContext with ctx, reassigned to context.Background\(\) on a path to this call`
			},
			OnStoppedLeading: func() {},
		},
	})
}

// Negative twin: the reassignment derives from the leader context, and the
// detached one is assigned only after the work started.
func runReassignedDerived(r *reconciler, d time.Duration) {
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("r2"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if d > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, d)
					defer cancel()
				}
				w := ctx
				r.Run(w, 1)
				w = context.TODO()
				r.sync(w)
				go r.RunWithContext(ctx)
				ctx = context.Background()
				r.sync(ctx)
			},
			OnStoppedLeading: func() {},
		},
	})
}

// A copy of the leader context, swapped for a detached one on one branch.
func runCopySwapped(r *reconciler, detach bool) {
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("r3"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				work := ctx
				if detach {
					work = context.TODO()
				}
				r.Run(work, 1) // want `leader callback starts r.Run with work, set to context.TODO\(\) on a path to this call`
			},
			OnStoppedLeading: func() {},
		},
	})
}

func detached() context.Context { return context.Background() }

// withHour ignores the context it is given.
func withHour(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Hour)
}

// withLeaderHour derives from the context it is given.
func withLeaderHour(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Hour)
}

// Work on contexts made by local helpers: two of them return a detached
// context, the third derives from the leader's.
func runThroughHelpers(r *reconciler) {
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("r4"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				go r.RunWithContext(detached()) // want `leader callback starts r.RunWithContext with detached\(...\), which returns context.Background\(\)`
				hctx, cancel := withHour(ctx)
				defer cancel()
				r.Run(hctx, 1) // want `leader callback starts r.Run with hctx \(derived from withHour\(...\), which returns context.Background\(\)\)`
				lctx, lcancel := withLeaderHour(ctx)
				defer lcancel()
				r.Run(lctx, 1)
			},
			OnStoppedLeading: func() {},
		},
	})
}
