// Package resourcelock is a stub of k8s.io/client-go/tools/leaderelection/
// resourcelock (v0.34) for analyzer tests: real names and signatures of what
// the fixtures use, trivial bodies. Client parameters are simplified to any.
package resourcelock

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	LeasesResourceLock = "leases"
)

// LeaderElectionRecord is the record stored in the lock.
type LeaderElectionRecord struct {
	HolderIdentity       string
	LeaseDurationSeconds int
	LeaderTransitions    int
}

// ResourceLockConfig is common data that exists across different resource
// locks.
type ResourceLockConfig struct {
	Identity string
}

// Interface offers a common interface for locking on arbitrary resources.
type Interface interface {
	Get(ctx context.Context) (*LeaderElectionRecord, []byte, error)
	Create(ctx context.Context, ler LeaderElectionRecord) error
	Update(ctx context.Context, ler LeaderElectionRecord) error
	RecordEvent(string)
	Identity() string
	Describe() string
}

// LeaseLock is a lock on a coordination.k8s.io Lease.
type LeaseLock struct {
	LeaseMeta  metav1.ObjectMeta
	Client     any
	LockConfig ResourceLockConfig
}

func (ll *LeaseLock) Get(ctx context.Context) (*LeaderElectionRecord, []byte, error) {
	return nil, nil, nil
}
func (ll *LeaseLock) Create(ctx context.Context, ler LeaderElectionRecord) error { return nil }
func (ll *LeaseLock) Update(ctx context.Context, ler LeaderElectionRecord) error { return nil }
func (ll *LeaseLock) RecordEvent(s string)                                       {}
func (ll *LeaseLock) Identity() string                                           { return ll.LockConfig.Identity }
func (ll *LeaseLock) Describe() string                                           { return "" }

// New returns a lock of the given type.
func New(lockType string, ns string, name string, coreClient any, coordinationClient any, rlc ResourceLockConfig) (Interface, error) {
	return &LeaseLock{LockConfig: rlc}, nil
}
