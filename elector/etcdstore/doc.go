// Package etcdstore is the etcd backend of the elector: an elector.Store and
// elector.Watcher on clientv3, tested against a real etcd server.
//
// # Model
//
// A term of lease name is the key <prefix>lease/<name>, whose value is the
// holder, attached to an etcd lease of the term's TTL. The key exists exactly
// while the term is live: etcd deletes it when the lease expires or is
// revoked, judging expiry by the etcd leader's clock, never the candidate's.
//
//   - Acquire grants a lease (the ttl rounded up to whole seconds and to
//     MinTTL, etcd's own minimum) and creates the key in a transaction guarded
//     by CreateRevision(key) == 0. A holder that finds its own identity on the
//     key (it restarted) deletes that key, guarded by its create revision, and
//     competes again, so a reclaim always starts a new term.
//   - The fencing token is the key's CreateRevision: the cluster-wide revision
//     of the transaction that created it. Revisions are durable and only move
//     forward, so tokens strictly increase per name and are never reused, also
//     across restarts of etcd (see TestRestartTokensNeverGoBack). They go back
//     only if the cluster's data is thrown away or restored from an old
//     snapshot without bumping the revision (etcdutl snapshot restore
//     --bump-revision exists for that).
//   - Renew sends KeepAliveOnce for the term's lease and then checks that the
//     key still carries the term's token and lease. In that order, a success
//     means the extended lease is the one keeping this term's key alive.
//   - Release deletes the key in a transaction guarded by CreateRevision ==
//     token (a stale term deletes nothing) and then revokes the lease.
//   - Read is one transaction reading the key and a record of the last term,
//     plus TimeToLive for Remaining (whole seconds, see Read).
//   - Watch is a clientv3 watch on the key, started from the revision read
//     when Watch was called, so no change after Watch returns is missed.
//
// # Costs
//
// Acquire of a free lease is a read, a lease grant and a transaction: two
// raft commits, where concurrency.Election's standby, whose key is already
// queued, needs none after the leader's delete. A fresh lease per term is
// what makes Renew and Release term-scoped, so a handover costs one or two
// fsyncs more than etcd's own election (BenchmarkHandover against
// BenchmarkPeerElectionHandover). Acquire on a held lease is one read, so a
// polling standby does not write. Renew is a keepalive (leader-local, no
// raft commit) and a read.
//
// # Fencing at the resource
//
// Store.Fence returns the comparisons CreateRevision(key) == token and
// Value(key) == holder; a write the leader makes to etcd inside a transaction
// guarded by them is refused once the term is over, however long the writer
// was paused. Store.PutFenced is that write for a single key.
//
// # Why the leader's context ends before etcd can expire the lease
//
// The elector core does not wait for etcd to say the lease is gone (that is
// how concurrency.Session.Done fires: after the fact). It anchors the leader's
// deadline to the send time of the last successful acquire or renew, on the
// local monotonic clock: deadline = send time + ttl - drift bound - stop
// budget. etcd started the lease's new TTL when it applied the keepalive,
// which was after that send time, and it deletes the key only after the TTL
// has passed on its own clock and it has noticed (it checks every 500 ms)
// and committed the revoke. A store may only round the ttl up, so the TTL
// etcd enforces is never shorter than the one the deadline was computed
// from. Hence the leader's context is cancelled before any other candidate
// can create the key, as long as the clocks' rates differ by less than the
// drift bound. When a renew fails (a cut connection, a stopped etcd), no new
// send time is recorded and the old deadline stands.
//
// etcd itself only ever lengthens a lease: after a leader change or restart
// it renews every lease to its full TTL, which delays takeover but never
// shortens the old leader's safe window.
//
// # A frozen connection
//
// clientv3 sends every request over one gRPC connection. When it goes silent
// without a reset (a half-open connection), every renew attempt waits on it;
// new connections would work, but none is opened, and the leader loses its
// term at its deadline (faulttest's HalfOpenStall shows it on a 2 s lease,
// so it skips here). gRPC keepalive (clientv3.Config DialKeepAliveTime and
// DialKeepAliveTimeout) replaces such a connection, but grpc-go enforces at
// least 10 s between pings, so it helps only leases whose safe window is
// well above that; below it, the lost term is what happens, and fencing
// keeps it safe.
//
// # Clocks
//
// etcd expires leases by its leader's monotonic clock, so wall-clock steps
// on any machine do not matter. A new etcd leader extends every lease (a
// failover delay, not a hazard), and a suspended etcd leader stops expiring
// leases until it resumes (again only a delay). See the elector package's
// "Clocks" section for the candidates' side.
package etcdstore
