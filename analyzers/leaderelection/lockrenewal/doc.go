// Package lockrenewal defines the LE3004 analyzer: a fixed-TTL lock held
// around work of unbounded duration, never extended or refreshed.
//
// # Analyzer lockrenewal
//
// lockrenewal: report fixed-TTL locks that can expire mid-work.
//
// A Redis lock expires after its TTL whether or not the holder is done.
// When the work under it can take longer (a loop over input, a user
// callback, network calls in a loop, sleeps), the lock expires mid-work,
// another replica takes it and the same work runs twice at once. The
// analyzer reports at the acquire, with Related at the unbounded work:
//
//   - redsync: rs.NewMutex(name, opts...) (8 s by default, or WithExpiry(d))
//     then mu.Lock/LockContext/TryLock*, with no Extend/ExtendContext;
//   - bsm/redislock: Obtain(ctx, key, ttl, opt) with no lock.Refresh;
//   - go-redis: SetNX with a TTL, SetArgs{Mode: "NX", TTL: d}, or
//     Do("SET", k, v, "NX", "PX", ms), with no Expire/PExpire or refresh
//     script on the key;
//   - a redsync mutex handed to the caller behind a type that cannot extend
//     it (a scheduler's Lock interface with only Unlock), when the package
//     never extends it: whatever the caller runs under it is bounded only by
//     the TTL;
//   - Azure Blob leases (azblob/lease BlobClient and ContainerClient, and
//     the legacy azure-storage-blob-go BlobURL and ContainerURL):
//     AcquireLease with a constant duration of 15 to 60 s (int32(d.Seconds())
//     of a constant d too) and no RenewLease in a loop or goroutine while it
//     is held (one RenewLease before the work does not count); and a lock
//     function (Lock, Acquire...) that takes such a lease and returns
//     holding it when nothing in the package renews a lease;
//   - a project's own lease interface: an acquire (Obtain, Acquire, Lock,
//     TryLock...) taking a time.Duration, with a renewal (Refresh, Extend,
//     Renew, KeepAlive, Heartbeat, UpdateLease...) taking a time.Duration
//     and a release (Release, Unlock) in the same interface, called with a constant TTL and never
//     renewed. The contract is judged, not an implementation: a no-op or
//     in-memory one does not make it safe, the caller passes a TTL it never
//     extends. A function or method that forwards its own duration
//     parameter to the acquire (session.ObtainLock(ctx, d) calling
//     s.Lock.Obtain(ctx, d)) is that acquire, and one forwarding to the
//     renewal or, named like a release, to the release is that renewal or
//     release, in importing packages too (facts); an acquire that also
//     renews or releases is a scope (WithLock(ctx, ttl, fn)), not an
//     acquire. An acquire taking a duration in an interface with no renewal
//     is a wait timeout, not a lease: silent. Renewal is recognised where
//     the handle is: a closure under the lease is judged by whether it
//     renews, a function of the package by whether it (or one it calls)
//     renews; the handle passed straight to a callback or another package
//     keeps it silent;
//   - a project's own lock handle type (a concrete type, not an interface):
//     an exported constructor returning *T that takes the lease with a TTL
//     fixed in its body (a constant duration that reaches the lock
//     service's acquire RPC, a method of another package named with Lock,
//     Lease, Acquire or Obtain, or time.Now().Add(d) into T's expiry
//     field), when T has an exported method that sends the acquire again
//     with its caller's duration (the renewal) and the constructor starts
//     no goroutine that does. The constructor, the renewal and the
//     release methods (those sending the service's Unlock or Release) are
//     facts, so the caller's package judges `l := c.NewShortLock(key);
//     defer l.Release()` around its work as it judges a lease interface.
//     A constant that goes into the request's wait or timeout field, or
//     only into a context deadline, is the time spent trying: silent; so
//     is a type nothing can renew (its duration may be a wait), and a
//     status query (LockStatus) takes no lease.
//
// A queue's claim of an item is such a lock too: the item becomes claimable
// by another consumer after a fixed time while the handler runs on it.
// Reported at the claim, with Related at the takeover and at the work:
//
//   - Redis Streams: XReadGroup in a consumer group leaves the entry
//     pending for this consumer, and the package's XClaim/XAutoClaim takes
//     entries idle longer than its MinIdle (a constant, or a field every
//     assignment of which is a constant: the configuration default);
//   - SQL: UPDATE t SET c = now() + a constant interval (or c = ? with
//     time.Now().Add(d) as its argument, d a constant or a field set from
//     constants only) that returns the row (RETURNING, or a SELECT ... FOR
//     UPDATE of t before it), when a statement of the package takes rows
//     whose c has passed (c < now(), or c < ? with time.Now());
//   - SQS: ReceiveMessage with a constant VisibilityTimeout (the queue
//     delivers the message again once it passes).
//
// The work is found by following the claimed item in SSA to a channel
// send, a callback or a Handle/Process/Run-like interface method called
// with it. Silent when the claim is renewed (an XClaim with MinIdle 0, or
// one reached by the item's own ID; an UPDATE of c keyed by anything but
// constants; any ChangeMessageVisibility; a raw or scripted XCLAIM), when
// the work gets a context whose constant WithTimeout is below the expiry,
// when the expiry cannot be read, and when nothing takes the item over.
// A bare XClaim with MinIdle 0 silences LE3004 but takes the entry back
// whoever holds it, which LE4001 reports; the message therefore advises a
// refresh conditional on this consumer still holding the entry.
//
// The lock is held from the acquire (or, for an acquire retried in an
// endless loop until it breaks out, or in a `for !held` loop that sets held
// once it succeeded, from the end of that loop) to the first
// release that is not deferred, or the end of the function; the acquire's
// `err != nil` branch is not part of it. The unbounded work may be one call
// away, in a function of the package (return s.drain(ctx)).
//
// Under a project's own lease (a lease interface or a concrete lease
// handle) it may also be in another package of the same module, at any
// depth: a handler calling its store, whose helper loops over the chunks
// uploading each. Each function's "runs work of unbounded duration" is a
// fact (UnboundedWork, computed by workfact.go's analyzer), by the same
// notion judged without a lock: a loop over input whose body does I/O, a
// caller's callback (a parameter or field, not a package's func-valued
// variable such as timeNow), a sleep of a non-constant duration, a job's
// Run; bounded are a constant iteration count, a constant sleep, calls
// under a constant context deadline, and a call of the module's own code
// in a loop unless that code is itself unbounded. It is transitive through
// the package's calls and the module's imported facts. Only callees in the
// module of the package analyzed are consulted (pass.Module's path, or
// without one the package path's first element, or its first three when
// that is a host); a library's functions are not. The lease's own calls
// (its release wrapper) are no work. Other lock kinds (redsync mutexes,
// redis keys, Obtain, Azure leases) keep the one level inside their own
// package: on seaweedfs ./weed/..., oauth2-proxy and atlas the facts
// applied to every kind added no finding the lease-only scope does not,
// and without evidence for the wider scope precision decides.
//
// Renewal anywhere in the function (a goroutine or ticker that extends, a
// call of a package function that does), or the handle passed to code the
// analysis cannot see, keeps it silent. Bounded work (a constant number of
// iterations, a sleep shorter than half the constant TTL, calls made with a
// context whose constant context.WithTimeout is shorter than the TTL) is not
// reported, nor is an Azure lease whose duration is not a constant.
//
// Example:
//
//	mu := rs.NewMutex("lock:sync")  // 8 s
//	if err := mu.LockContext(ctx); err != nil { return err } // LE3004
//	defer mu.UnlockContext(ctx)
//	for _, a := range accounts { syncAccount(ctx, a) } // unbounded
//
// A lock file whose content is its expiry (written once as
// time.Now().Add(ttl), a file whose expiry passed treated as free) and that
// nothing in the package rewrites in a loop or touches (os.Chtimes) is
// reported at the expiry: its acquire hands the caller a release, and the
// work between the two has no bound.
//
// Fix: extend the lock while working (mu.ExtendContext, lock.Refresh, a
// compare-and-PEXPIRE script) and stop the work when the extension fails,
// or run the work under the project's elector, which renews the lease and
// cancels the work's context when leadership is lost.
package lockrenewal
