package clientgo // want package:"elected fields: le4001/gated/clientgo.node.elected closed after OnStartedLeading" package:"leadership loss only logged for le4001/gated/clientgo/clientgo.go:\\d+" package:"reported: le4001/gated/clientgo/clientgo.go:\\d+"

import (
	"context"
	"os"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"
)

type compactor struct{}

func (compactor) Run(ctx context.Context) { <-ctx.Done() }

// node signals leadership through a channel closed in OnStartedLeading;
// losing the lease is only logged.
type node struct {
	elected chan struct{}
	work    compactor
}

func (n *node) elect(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				close(n.elected)
			},
			OnStoppedLeading: func() { klog.Info("lost the lease") },
		},
	})
}

func (n *node) run(ctx context.Context) { // want run:"gated work: n.work.Run on ctx"
	go n.elect(ctx)
	<-n.elected
	n.work.Run(ctx) // want `leader work n.work.Run .* waits for le4001/gated/clientgo.node.elected \(closed once at .* after OnStartedLeading, never reset\)`
}

// strictNode exits when the lease is lost: its gated work ends with the
// process.
type strictNode struct {
	elected chan struct{}
	work    compactor
}

func (n *strictNode) elect(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				close(n.elected)
			},
			OnStoppedLeading: func() { klog.Info("lost the lease"); os.Exit(1) },
		},
	})
}

func (n *strictNode) run(ctx context.Context) { // want run:"gated work: n.work.Run on ctx"
	go n.elect(ctx)
	<-n.elected
	n.work.Run(ctx)
}
