// Package kubestore is the Kubernetes backend of the elector: an
// elector.Store and elector.Watcher on coordination.k8s.io/v1 Lease objects
// through k8s.io/client-go, tested against a real kube-apiserver (see
// docs/kubernetes.md for the RBAC Role to grant and the comparison with
// client-go's leaderelection).
//
//	cfg.QPS, cfg.Burst = 50, 100 // client-go's default of 5 QPS can queue a renew
//	cs := kubernetes.NewForConfigOrDie(cfg)
//	store := kubestore.New(cs.CoordinationV1(), namespace)
//	c, err := elector.New(store, "billing-reconciler")
//
// # Model
//
// A lease name is a Lease object of that name. Its spec has client-go's
// field semantics, so kubectl and client-go's LeaseLock read it as usual:
// holderIdentity is the holder, leaseDurationSeconds the ttl rounded up to
// whole seconds, acquireTime and renewTime the holder's wall clock at the
// grant and the last renew, leaseTransitions counts grants after the first.
// Release writes what client-go's ReleaseOnCancel writes: an empty
// holderIdentity and a duration of 1 s.
//
// Every write is an Update guarded by the resourceVersion of the read that
// justified it, so two candidates can never both win: the second write
// conflicts, and the loser reads again (ErrHeld, or ErrLost for a term
// that changed underneath).
//
// # Expiry: by observation, not by timestamps
//
// The API server does not expire anything, and renewTime is written by the
// holder's clock, which another machine must not trust. A Store therefore
// judges a Lease the way client-go does: the holder is live until
// leaseDurationSeconds have passed, on this process's monotonic clock,
// since this Store first saw the Lease's current resourceVersion. That
// first sighting came after the write that created the version, which was
// sent after the holder started the term, so a standby never grants
// itself the Lease before the holder's own deadline (send time + lease
// duration - drift bound - stop budget) has passed, as long as clock rates
// differ by less than the drift bound. Wall clocks do not matter at all.
// The price: a Store that has never seen a Lease (a process that just
// started) waits one full lease duration from its first sighting before
// taking over a crashed holder's Lease, even if renewTime is long past.
// Watch events count as sightings, so a watching standby starts its count
// when the last renewal arrives. The holder's own Store also remembers the
// send time of its last successful write and gives up the term (ErrLost)
// once the duration has passed since, whatever the server says.
//
// # Fencing tokens that never go back
//
// leaseTransitions cannot be the token: it is an int32 that a same-holder
// reclaim does not need to bump and that starts again at 0 when the Lease
// is deleted and created anew. The token of a term is kept in the
// annotation TokenAnnotation on the Lease, and every grant first raises a
// counter on a second, holder-less Lease, name + FenceSuffix, in the
// annotation FenceAnnotation (a write guarded by its resourceVersion), to
// max(counter, token on the Lease) + 1, and only then writes the Lease
// with that token. So:
//
//   - while the Lease exists, its token only grows: the new token exceeds
//     the token of the version the guarded write replaces;
//   - when the Lease is deleted, the fence still holds a value at least as
//     large as every token issued, because each was reserved there first;
//   - when the fence is deleted, the Lease's token is the floor;
//   - a reservation whose Lease write then fails leaves a gap, never a
//     repeat.
//
// Only deleting both objects resets the counter (to 1): no Kubernetes
// object outlives its own deletion, and resourceVersion is not a counter
// clients may rely on. The documented Role grants no delete and no patch,
// so an elector's identity cannot do it; an administrator can, and
// should not while any old leader may still be writing.
//
// Fencing at the resource is the application's: pass the token with every
// write and let the resource refuse older ones (elector.CheckToken,
// elector.Fence); for a Kubernetes object, keep the newest token in an
// annotation and update it guarded by resourceVersion.
//
// # Costs
//
// Acquire of a free Lease is a read of the Lease, a read and a write of the
// fence, and a write of the Lease: four requests, two etcd commits. A
// standby polling a held Lease makes one read. Renew and Release are a
// read and a guarded write each. Watch is one watch request per standby,
// on the Lease by name (fieldSelector metadata.name).
//
// # A frozen connection
//
// client-go sends every request over one HTTP/2 connection. When it goes
// silent without a reset (a half-open connection), every renew attempt waits
// on it; new connections would work, but none is opened, and the leader
// loses its term at its deadline (faulttest's HalfOpenStall shows it on a 2
// s lease, so it skips here). HTTP/2 health checks (the transport's
// ReadIdleTimeout and PingTimeout, which client-go reads from
// HTTP2_READ_IDLE_TIMEOUT_SECONDS and HTTP2_PING_TIMEOUT_SECONDS) replace
// such a connection; set them well within the safe window (lease - drift
// bound - stop budget).
//
// # Clocks
//
// Expiry is judged on the observing candidate's monotonic clock (see
// Expiry above), so wall-clock steps on any machine, including the API
// server's and the holder's (renewTime), do not matter. A suspended
// observer counts less time, which only delays its takeover. See the
// elector package's "Clocks" section for the holder's side.
package kubestore
