// Package leaderelection is a stub of k8s.io/client-go/tools/leaderelection
// (v0.34) for analyzer tests: the real names and signatures, trivial bodies.
package leaderelection

import (
	"context"
	"time"

	rl "k8s.io/client-go/tools/leaderelection/resourcelock"
)

const (
	JitterFactor = 1.2
)

// LeaderElectionConfig configures a LeaderElector.
type LeaderElectionConfig struct {
	Lock            rl.Interface
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
	Callbacks       LeaderCallbacks
	WatchDog        *HealthzAdaptor
	ReleaseOnCancel bool
	Name            string
	Coordinated     bool
}

// LeaderCallbacks are callbacks that are triggered during certain
// lifecycle events of the LeaderElector.
type LeaderCallbacks struct {
	OnStartedLeading func(context.Context)
	OnStoppedLeading func()
	OnNewLeader      func(identity string)
}

// LeaderElector is a leader election client.
type LeaderElector struct {
	config LeaderElectionConfig
}

// HealthzAdaptor associates the /healthz endpoint with the LeaderElection object.
type HealthzAdaptor struct{}

func (l *HealthzAdaptor) SetLeaderElection(le *LeaderElector) {}

// NewLeaderElector creates a LeaderElector from a LeaderElectionConfig.
func NewLeaderElector(lec LeaderElectionConfig) (*LeaderElector, error) {
	return &LeaderElector{config: lec}, nil
}

// Run starts the leader election loop.
func (le *LeaderElector) Run(ctx context.Context) {}

// RunOrDie starts a client with the provided config or panics.
func RunOrDie(ctx context.Context, lec LeaderElectionConfig) {}

// GetLeader returns the identity of the last observed leader.
func (le *LeaderElector) GetLeader() string { return "" }

// IsLeader returns true if the last observed leader was this client.
func (le *LeaderElector) IsLeader() bool { return false }

// Check returns an error if the lease has expired too long ago.
func (le *LeaderElector) Check(maxTolerableExpiredLease time.Duration) error { return nil }
