// Package leasetiming defines the LE4002 analyzer: unsafe constant lease
// timing.
//
// # Analyzer leasetiming
//
// leasetiming: lease timing that the library rejects or that breaks failover
//
// A lease only protects leadership if its timing is consistent: the lease
// must outlive the holder's attempts to renew it, renewals must fit before
// the deadline, and TTLs must be ones the store actually grants. The
// analyzer folds constant durations (literals, named constants, and
// unexported or local variables initialised once and never written again)
// and reports, at the field or option call holding the bad value:
//
//   - a client-go leaderelection.LeaderElectionConfig with LeaseDuration <=
//     RenewDeadline, or RenewDeadline <= JitterFactor (1.2) x RetryPeriod,
//     exactly as NewLeaderElector rejects them; also controller-runtime's
//     manager Options (pointers, unset fields at the manager's 15s/10s/2s
//     defaults, judged only when LeaderElection is set);
//   - etcd concurrency.WithTTL(n) with n <= 0 (ignored: 60 s default kept),
//     n below the server's minimum lease TTL (2 s with default election
//     timing), or n above MaxLeaseTTL (a time.Duration passed as seconds);
//   - a redsync NewMutex whose expiry (WithExpiry, default 8 s) is shorter
//     than its retry budget, WithTries x WithRetryDelay (defaults 32 and the
//     minimum random delay, 50 ms);
//   - a Consul session TTL string (LockOptions.SessionTTL, SessionEntry.TTL)
//     outside the 10s..24h the server accepts;
//   - this project's elector.Timing literal that Timing.Validate rejects;
//   - a project's own lease renewed by a loop in a goroutine that sends a
//     lock service's acquire RPC (a method of another package named like
//     DistributedLock or AcquireLease) with the TTL as a duration in the
//     request, when the context.WithTimeout around that RPC is at least
//     the TTL (a blocked renewal outlives the lease), or the loop's own
//     pace (NewTicker, NewTimer, Sleep, After) is. Values are folded
//     through the package's calls from the loop to the RPC, closure
//     bindings, phis, and unexported fields only ever stored constants;
//     the timeout must be constant on every path, the TTL is judged on
//     each constant path (a TTL defaulted when zero). Reported at the
//     field, assignment or call holding the timeout or interval.
//
// A literal whose timing fields are assigned again in the same function is
// not judged.
//
// For example, this is reported at RenewDeadline:
//
//	leaderelection.LeaderElectionConfig{
//		LeaseDuration: 15 * time.Second,
//		RenewDeadline: 2 * time.Second,
//		RetryPeriod:   2 * time.Second, // 1.2 x 2s = 2.4s > RenewDeadline
//	}
//
// Timing from flags, configuration or function parameters is not constant
// and gives no report.
package leasetiming
