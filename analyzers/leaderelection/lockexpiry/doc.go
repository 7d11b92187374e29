// Package lockexpiry defines the LE3001 analyzer: a distributed lock or
// lease taken without expiry, or with its expiry set non-atomically after
// the acquire.
//
// # Analyzer lockexpiry
//
// lockexpiry: report locks that can outlive a crashed holder.
//
// Replicas that compete for a lock need the lock to end when its holder
// dies; otherwise one crash (or kill -9, or OOM) leaves the key in place and
// no replica ever runs the guarded work again. The analyzer reports, at the
// acquire call:
//
//   - go-redis SetNX(ctx, k, v, 0) or with redis.KeepTTL, SetArgs with Mode
//     "NX" and no TTL or ExpireAt, and raw commands Do(ctx, "SETNX", ...) or
//     Do(ctx, "SET", k, v, "NX") without EX/PX (redigo conn.Do too);
//   - the same acquires followed by a separate Expire/PExpire on the key:
//     the expiry is set non-atomically, and a crash between the two calls
//     leaves the lock forever;
//   - a GETSET takeover of a lock key: GETSET drops the key's TTL, so the
//     lock has no expiry until a separate Expire, if any;
//   - an etcd create-if-absent transaction (If(Compare(CreateRevision(k),
//     "=", 0)).Then(OpPut(k, v))) whose put carries no clientv3.WithLease,
//     in a function or type named like a lock (lock, lease, leader, elect,
//     campaign, acquire, claim, mutex) or on a key with a constant part
//     ("/locks/compactor", "/leader/"+name); a create of a key made only of
//     parameters and fields elsewhere (a store's Create(path, contents)) is
//     a primitive whose use its caller decides, and is silent;
//   - SQL lock rows: INSERT into, or UPDATE ... SET owner = of, a table named
//     like a lock (locks, job_lock, leader_election, leases) whose statement
//     has no expiry or time column;
//   - an Azure Blob lease acquired with duration -1 (infinite);
//   - a lock the project builds itself, found by its shape: a Lock- or
//     Acquire-named function that inserts a row on a key (SQL text read
//     through the effects' SSA folding, a table name that is configured, an
//     ORM model with a key), inserts a MongoDB document on a unique key (a
//     unique index the package creates, or an _id it sets), or swaps a
//     store key from empty with a compare-and-swap method of a network
//     client, paired with the Unlock- or Release-named function of the same
//     type that deletes the row or document by key or swaps the key back,
//     when nothing ends it: no expiry column or field, no TTL index or TTL
//     argument, no statement or filter that takes over or sweeps a stale
//     holder. Session-scoped locks (advisory locks, GET_LOCK), stores of
//     the process (sync/atomic, a map) or of a local file, and statements or
//     documents the analysis cannot read give no report.
//
// Only constant evidence counts: a TTL that is not a constant, a key built
// at run time for a GETSET, or statement text that cannot be folded gives
// no report.
//
// Example:
//
//	ok, _ := rdb.SetNX(ctx, "lock:billing", host, 0).Result() // LE3001
//
// Fix: pass the TTL in the acquire itself (SetNX(ctx, k, token, 30*time.Second),
// SET k token NX PX 30000) and renew it while working, or use the project's
// elector, whose leases expire and are renewed for you.
package lockexpiry
