// Package manager is a stub of sigs.k8s.io/controller-runtime/pkg/manager
// (v0.22) for analyzer tests: real names and signatures of what the
// fixtures use, trivial bodies.
package manager

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
)

// Options are the arguments for creating a new Manager.
type Options struct {
	LeaderElection                bool
	LeaderElectionResourceLock    string
	LeaderElectionNamespace       string
	LeaderElectionID              string
	LeaderElectionReleaseOnCancel bool
	LeaseDuration                 *time.Duration
	RenewDeadline                 *time.Duration
	RetryPeriod                   *time.Duration
	HealthProbeBindAddress        string
}

// Manager initializes shared dependencies and runs Runnables.
type Manager interface {
	Start(ctx context.Context) error
	Elected() <-chan struct{}
}

// New returns a new Manager for creating Controllers.
func New(config *rest.Config, options Options) (Manager, error) { return nil, nil }
