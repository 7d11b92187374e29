// Package election wraps client-go's leader election the way many
// operators do: the caller hands over the work, the wrapper owns the
// LeaderElectionConfig.
package election

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Interface is a leader election.
type Interface interface {
	Run(ctx context.Context)
	IsLeader() bool
}

type config struct {
	name      string
	startWork func(context.Context)
	stopWork  func()
	lock      resourcelock.Interface
	elector   *leaderelection.LeaderElector
	isLeader  int64
	log       logr.Logger
}

// New keeps the callbacks in a struct and calls them from the real
// callbacks: startWork receives the leader context.
func New(log logr.Logger, name, namespace string, client any, id string, retryPeriod time.Duration, startWork func(context.Context), stopWork func()) (Interface, error) { // want New:"forwards param 6 as OnStartedLeading \\(stop 7, stops work false\\)"
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, namespace, name, client, client,
		resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return nil, fmt.Errorf("error initializing resource lock: %s/%s: %w", namespace, name, err)
	}
	e := &config{name: name, lock: lock, startWork: startWork, stopWork: stopWork, log: log}
	e.elector, err = leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: 6 * retryPeriod,
		RenewDeadline: 5 * retryPeriod,
		RetryPeriod:   retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				atomic.StoreInt64(&e.isLeader, 1)
				e.log.V(2).Info("started leading")
				if e.startWork != nil {
					e.startWork(ctx)
				}
			},
			OnStoppedLeading: func() {
				atomic.StoreInt64(&e.isLeader, 0)
				e.log.V(2).Info("leadership lost, stopped leading")
				if e.stopWork != nil {
					e.stopWork()
				}
			},
		},
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *config) Run(ctx context.Context) { e.elector.Run(ctx) }
func (e *config) IsLeader() bool          { return atomic.LoadInt64(&e.isLeader) == 1 }

// RunOrExit forwards run directly; losing the lease exits the process.
func RunOrExit(ctx context.Context, lock resourcelock.Interface, run func(context.Context)) { // want RunOrExit:"forwards param 2 as OnStartedLeading \\(stop -1, stops work true\\)"
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() { panic("leader election lost") },
		},
	})
}

// Detached hands the work a fresh context instead of the leader's: it is
// not a forwarder (its callers cannot be judged by the leader context).
func Detached(ctx context.Context, lock resourcelock.Interface, work func(context.Context)) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { work(context.Background()) },
			OnStoppedLeading: func() {},
		},
	})
}
