// Package elector is a leader elector for Go services: one instance of a
// service does a job (a ticker loop, a queue consumer, a reconciler) while
// the others stand by, and a standby takes over when the leader stops,
// crashes or is cut off.
//
//	store, err := pgstore.New(pool) // then store.Migrate(ctx); or etcdstore, redisstore; memstore in tests
//	c, err := elector.New(store, "billing-reconciler")
//	...
//	err = c.Run(ctx, func(ctx context.Context, lease elector.Lease) error {
//		// leader until ctx ends; fence every write with lease.Token()
//	})
//
// # Guarantees
//
//   - Run competes until its context ends: acquire, run the work, renew in
//     the background, release, compete again. Store errors are retried with
//     jittered backoff and reported as events; it never stops on its own.
//   - The work's context is cancelled before any other candidate can be
//     granted the lease: at the send time of the last successful acquire or
//     renew, on the monotonic clock, plus LeaseDuration - DriftBound -
//     StopBudget. (Measuring from the response instead adds the whole round
//     trip to the leader's belief; the simulator in elector/sim catches
//     that.) The cancellation runs on its own goroutine, so a slow event
//     callback or logger cannot delay it. A renew that fails with ErrLost
//     cancels the work at once with an event saying why.
//   - A process frozen past its deadline (SIGSTOP, a VM pause, a long GC)
//     sees the term over on its first check after resuming: the work
//     context's Err and Done, and Lease.Valid, compare the deadline with the
//     monotonic clock synchronously instead of waiting for the watchdog
//     goroutine to be scheduled. A freeze between that check and the write
//     is still possible, which is what fencing tokens are for.
//   - One hung request does not cost the term: while no renew has
//     succeeded, a new attempt starts every jittered RetryInterval whether or
//     not the earlier ones answered, and each is abandoned after two retry
//     intervals (or at the deadline), so the attempts Timing.RenewAttempts
//     counts all happen even on a half-open connection.
//   - The lease is released only after the work has returned, so a standby
//     never starts while this instance still works (unless the work overruns
//     its stop budget, which is reported as WorkOverran).
//   - Every term carries a fencing token from the store, strictly increasing
//     per lease name and never reused. A lease cannot stop a leader that was
//     paused past its deadline from writing; a resource that rejects stale
//     tokens can: see Fence, CheckToken, FenceSQL and TokenHeader, and the
//     README's "Fencing" section for the one rule across stores (a
//     high-water mark at the resource; a live-term check where the resource
//     is in the lease's store).
//   - Resign and shutdown are graceful: the work stops, the term is released
//     and a standby on a watching store takes over at once.
//
// # Timing model
//
// One Timing (LeaseDuration, RenewInterval, RetryInterval, DriftBound,
// StopBudget) is validated by New, with errors that say why a combination is
// unsafe. Timing.Explain prints the safe window, the renew attempts that fit
// before the deadline, the clock drift tolerated, and the worst-case crash
// failover (LeaseDuration + jittered RetryInterval) and graceful handover
// (StopBudget, plus a poll interval without a watch). The defaults (15 s, 5 s,
// 2 s, 500 ms, 1 s) are explained at DefaultTiming.
//
// # Clocks
//
// A candidate measures its deadline on its own monotonic clock (Go's
// time.Now reading), so steps of its wall clock do not matter, and
// DriftBound covers the rate error between that clock and the store's over
// one lease. Two things it cannot see:
//
//   - Suspend. Go's monotonic clock (CLOCK_MONOTONIC on Linux) stops while
//     the machine is suspended (laptop sleep, a VM saved and restored), so a
//     leader that resumes believes its term still has the time it had before:
//     the store's lease may long have passed to another candidate, and only
//     the next renew (ErrLost) or a fencing token stops its writes. A process
//     stopped with SIGSTOP, or a VM paused with its clock running on, is
//     different: the monotonic clock advances, and the work's context is
//     ended on its first check after resuming. Do not run leaders on
//     machines that suspend, or fence every write.
//   - The store's clock. Each store says in its documentation what clock
//     judges expiry: pgstore, redisstore and azblobstore use the server's
//     wall clock, where a forward step ends terms early (only fencing
//     catches the overlap); etcdstore uses etcd's monotonic clock and
//     kubestore the observing candidate's, so wall-clock steps do not
//     matter to them; memstore uses its process's monotonic clock.
//
// # Identity
//
// The owner identity defaults to hostname plus a per-process nonce. A stable
// identity (WithIdentity) lets a restarted instance reclaim its own lease at
// once under a new token; two live processes sharing one are detected and
// reported as IdentityConflict (see DefaultIdentity).
//
// # Standbys
//
// If the store implements Watcher, standbys wake on its notifications (and
// still poll at a jittered RetryInterval in case a notification is lost);
// otherwise they poll. Candidate.Observe and Candidate.Leader report the leader
// without competing (a candidate that never calls Run is an observer).
//
// # Observability
//
// Events (WithEvents) are typed, with reason, token and timestamps, and are
// delivered in order on a goroutine of their own, so a slow callback or log
// sink never delays renewals (events beyond a queue of 256 are dropped and
// counted); WithLogger logs them through log/slog; AddObserver sees each
// one synchronously, for counters. Package elector/prommetrics registers
// Prometheus metrics (elector_is_leader, elector_token,
// elector_transitions_total, elector_renew_latency_seconds,
// elector_seconds_to_deadline, elector_events_total,
// elector_events_dropped_total), so this package does not depend on
// Prometheus. HealthHandler and LeaderHandler serve probes.
//
// An Ended event marks the moment a term's leader context ends, whatever
// the cause (Err), before Run waits for the work and releases the term: an
// AddObserver callback that clears a readiness flag there runs before the
// release. The work's error is in the Released event, and the last error
// of its own in Run's error ("context canceled (the work last failed in
// term 7: ...)"), so a work that fails on every term is not silent.
//
// # Stores
//
// Backends implement the small term-scoped Store interface and pass the
// conformance suite in elector/storetest against their real server.
package elector
