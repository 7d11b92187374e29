// Package unfencedwrite defines the LE3003 analyzer (off by default): work
// under a lock writes to a shared store without a fencing token or an
// ownership condition.
//
// # Analyzer unfencedwrite
//
// unfencedwrite: report writes under a lock that a stale holder can still
// make.
//
// A lock with a TTL does not stop its holder: a process that pauses past
// the TTL (a GC pause, a slow disk, a stalled network) wakes up still
// believing it holds the lock while another replica already took it; both
// then write. Only the store can reject the stale writes, when each write
// carries a fencing token (a number that grows with every acquisition) or
// a condition on the current owner. The analyzer reports, at each write to
// a shared store (the knowledge base's effects: SQL INSERT/UPDATE/DELETE,
// Redis writes, S3 puts, messages...) made after a recognised acquire
// (a SET NX lock, redsync, bsm/redislock) and before its release, when
// neither the write's arguments nor its constant SQL text mention a token,
// fence, epoch, generation, version or the lock handle, and the SQL has no
// owner predicate. Related points at the acquire.
//
// It is off by default: many services accept the risk, and the analysis
// cannot see a token checked deeper in the store.
//
// Example:
//
//	lock, _ := locker.Obtain(ctx, "lock:ledger", 30*time.Second, nil)
//	db.ExecContext(ctx, `UPDATE ledger SET balance = balance + $1`, d) // LE3003
//
// Fix: write through the elector's lease token
// (`... WHERE fencing_token <= $tok`), or a conditional write on the owner.
package unfencedwrite
