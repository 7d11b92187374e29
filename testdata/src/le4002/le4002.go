// Package le4002 holds the LE4002 fixtures: unsafe constant lease timing.
package le4002

import (
	"context"
	"flag"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/go-redsync/redsync/v4"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

const (
	leaseDuration = 10 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

var (
	// initialised once with a constant, never written again
	fastRetry = 5 * time.Second

	flagLease = flag.Duration("lease-duration", 15*time.Second, "leader election lease duration")
	flagRenew = flag.Duration("renew-deadline", 10*time.Second, "leader election renew deadline")
	flagRetry = flag.Duration("retry-period", 2*time.Second, "leader election retry period")

	// written by flag.DurationVar: not a constant
	tunedRenew = 1 * time.Second
)

func init() {
	flag.DurationVar(&tunedRenew, "tuned-renew", tunedRenew, "")
}

func run(ctx context.Context) {}

func lock() resourcelock.Interface { return &resourcelock.LeaseLock{} }

func equalLeaseAndRenew(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: leaseDuration, // want `LeaseDuration 10s is not longer than RenewDeadline 10s: client-go's NewLeaderElector rejects this`
		RenewDeadline: renewDeadline,
		RetryPeriod:   retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

func renewTooShortForRetry(ctx context.Context) {
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 30 * time.Second,
		RenewDeadline: 6 * time.Second, // want `RenewDeadline 6s is not longer than 1.2 x RetryPeriod 5s \(= 6s\)`
		RetryPeriod:   fastRetry,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
	if err == nil {
		le.Run(ctx)
	}
}

func localConstants(ctx context.Context) {
	lease := 8 * time.Second
	renew := lease + time.Second
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: lease, // want `LeaseDuration 8s is not longer than RenewDeadline 9s`
		RenewDeadline: renew,
		RetryPeriod:   time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

// --- negatives ---

func clientGoDefaults(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

func fromFlags(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: *flagLease,
		RenewDeadline: *flagRenew,
		RetryPeriod:   *flagRetry,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

func fromParams(ctx context.Context, retry time.Duration) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 6 * retry,
		RenewDeadline: 5 * retry,
		RetryPeriod:   retry,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

func reassigned(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 15 * time.Second,
		RenewDeadline: tunedRenew,
		RetryPeriod:   time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
}

// --- etcd sessions ---

func etcdSessions(cli *clientv3.Client, ttl int) {
	concurrency.NewSession(cli, concurrency.WithTTL(0))                      // want `WithTTL\(0\) is ignored by etcd's concurrency package: the session keeps the default 60 s TTL`
	concurrency.NewSession(cli, concurrency.WithTTL(1))                      // want `WithTTL\(1\): etcd raises a lease TTL below its minimum`
	concurrency.NewSession(cli, concurrency.WithTTL(int(10*time.Second)))    // want `WithTTL\(10000000000\): the TTL is in seconds and etcd rejects leases above 9000000000 s`
	concurrency.NewSession(cli, concurrency.WithTTL(10))                     // fine
	concurrency.NewSession(cli, concurrency.WithTTL(int(ttlFlag.Seconds()))) // not constant
	concurrency.NewSession(cli, concurrency.WithTTL(ttl))                    // not constant
}

var ttlFlag = flag.Duration("session-ttl", 10*time.Second, "")

// --- redsync ---

func redsyncMutexes(rs *redsync.Redsync, delay time.Duration) {
	rs.NewMutex("report", redsync.WithExpiry(time.Second))                                                                // want `redsync mutex expiry 1s is shorter than its own retry budget, 32 tries x 50ms \(the default delay`
	rs.NewMutex("export", redsync.WithExpiry(10*time.Second), redsync.WithTries(20), redsync.WithRetryDelay(time.Second)) // want `redsync mutex expiry 10s is shorter than its own retry budget, 20 tries x 1s = 20s`
	rs.NewMutex("sweep", redsync.WithTries(100), redsync.WithRetryDelay(500*time.Millisecond))                            // want `redsync mutex expiry 8s \(the default\) is shorter than its own retry budget, 100 tries x 500ms = 50s`
	// negatives
	rs.NewMutex("billing")
	rs.NewMutex("billing", redsync.WithExpiry(30*time.Second), redsync.WithTries(10), redsync.WithRetryDelay(time.Second))
	rs.NewMutex("billing", redsync.WithExpiry(2*time.Second), redsync.WithRetryDelay(delay))
	rs.NewMutex("billing", redsync.WithExpiry(2*time.Second), redsync.WithRetryDelayFunc(func(int) time.Duration { return time.Second }))
	rs.NewMutex("billing", redsync.WithExpiry(5*time.Second), redsync.WithTries(10), redsync.WithValue("x"))
}

// --- this project's elector ---

func electorTimings(store elector.Store) {
	elector.New(store, "reports", elector.WithTiming(elector.Timing{ // want `elector.Timing .*: elector.New rejects it .*the renew interval must be positive`
		LeaseDuration: 10 * time.Second,
		RetryInterval: time.Second,
	}))
	elector.New(store, "reports", elector.WithTiming(elector.Timing{
		LeaseDuration: 10 * time.Second,
		RenewInterval: 9 * time.Second, // want `the renew interval \(9s\) must be shorter than the safe window`
		RetryInterval: time.Second,
		DriftBound:    500 * time.Millisecond,
		StopBudget:    time.Second,
	}))
	elector.New(store, "reports", elector.WithTiming(elector.Timing{
		LeaseDuration: 10 * time.Second,
		RenewInterval: 5 * time.Second,
		RetryInterval: 3 * time.Second, // want `leave room for only 1 renew attempt`
		DriftBound:    500 * time.Millisecond,
		StopBudget:    time.Second,
	}))
	// negatives: the defaults, and timing from parameters
	elector.New(store, "reports", elector.WithTiming(elector.Timing{
		LeaseDuration: 15 * time.Second,
		RenewInterval: 5 * time.Second,
		RetryInterval: 2 * time.Second,
		DriftBound:    500 * time.Millisecond,
		StopBudget:    time.Second,
	}))
	elector.New(store, "reports", elector.WithTiming(elector.DefaultTiming()))
}

func electorFromConfig(store elector.Store, lease time.Duration) {
	elector.New(store, "reports", elector.WithTiming(elector.Timing{
		LeaseDuration: lease,
		RenewInterval: lease / 3,
		RetryInterval: 2 * time.Second,
	}))
}

// The literal is a starting point; the deadline is set again below.
func overridden(ctx context.Context, renew time.Duration) {
	cfg := leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 10 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
	}
	cfg.RenewDeadline = renew
	cfg.Callbacks = leaderelection.LeaderCallbacks{OnStartedLeading: run, OnStoppedLeading: func() {}}
	leaderelection.RunOrDie(ctx, cfg)
}

// Durations written without a unit are nanoseconds.
func unitless(ctx context.Context, rs *redsync.Redsync, store elector.Store) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          lock(),
		LeaseDuration: 15, // want `LeaseDuration is 15ns: a number without a unit is nanoseconds`
		RenewDeadline: 10,
		RetryPeriod:   2,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() {},
		},
	})
	rs.NewMutex("unitless", redsync.WithExpiry(30)) // want `redsync WithExpiry is 30ns`
	elector.New(store, "unitless", elector.WithTiming(elector.Timing{
		LeaseDuration: 15, // want `elector.Timing.LeaseDuration is 15ns`
		RenewInterval: 5,
		RetryInterval: 2,
	}))
}
