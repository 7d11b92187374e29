// Package localsingleton defines the LE1001 analyzer: periodic or background
// work with a non-idempotent effect on shared external state, guarded by
// nothing but process-local state.
//
// # Analyzer localsingleton
//
// localsingleton: periodic work with a shared effect is guarded only by
// process-local state.
//
// A service that runs on several replicas runs every ticker, cron entry and
// background loop once per replica. When the work writes to a shared store
// (inserts rows, sends email, publishes messages), N replicas do it N
// times. A sync.Once, a mutex or a boolean keeps the work single inside one
// process and does nothing across processes.
//
//	t := time.NewTicker(time.Hour) // LE1001: every replica sends the digest
//	for range t.C {
//		db.ExecContext(ctx, `INSERT INTO digests ...`)
//	}
//
// The finding is reported at the construct that schedules the work, with
// related information at each shared-state effect and at the local guard.
// Work that runs under coordination (a leader election callback, a lease, a
// SKIP LOCKED or compare-and-set claim, an advisory lock) is not reported,
// nor is per-replica work (queue consumers, heartbeats keyed by the
// instance, read-only loops) or idempotent-only work, which the strict
// profile adds. Work enabled by a static designation of one instance is
// LE1002's finding instead.
package localsingleton
