// Package redisstore is an elector.Store on Redis through go-redis v9.
//
// Each lease name has two keys sharing a hash tag (so they are in one
// Redis Cluster slot; the tests use a single server, not a cluster), under
// a prefix (WithPrefix):
//
//	<prefix>{<name>}:lease  "<token> <holder>", with PX expiry = the term
//	<prefix>{<name>}:term   hash {token, holder}: the token counter and the
//	                        most recent term; never expires, never deleted
//
// Acquire, Renew, Release and Read are Lua scripts, so each is atomic and
// judges expiry by the Redis server's clock. Acquire grants when the lease
// key is absent (free or expired) or names the same holder, issuing the new
// token max(last token + 1, Redis TIME in microseconds). Renew and Release
// compare the whole "<token> <holder>" value, so they act only on their own
// term. Release deletes the lease key, keeps the counter, and PUBLISHes on
// <prefix>{<name>}:changed; Watch subscribes to it.
//
// # What this lock is worth
//
// Without fencing at the resource, this is an efficiency lock, not a
// correctness lock. Redis replication is asynchronous: a primary can
// acknowledge a grant and fail before a replica has it, and after the
// failover a second holder is granted the same lease while the first still
// believes it leads. A paused or slow holder can also outlive its TTL.
// (TestFailoverLosesLeaseButTokensGrow shows exactly that with a real
// primary and replica, and that the token still grows across the
// failover, so fencing by token keeps working.)
// Use it where a rare double execution is harmless, or fence the writes:
// SetFenced for data in the same Redis, or check the token at the resource
// (a conditional write "only if token >= highest token seen").
//
// # Tokens across restarts
//
// Tokens must never go back, also across restarts. The counter key only
// survives a restart with persistence: run Redis with appendonly yes and
// appendfsync always for the counter to survive any crash (everysec loses
// up to a second of writes on a machine crash, though not on a crash of
// the redis-server process alone; RDB snapshots lose everything since the
// last save). As a second line of defence every token is at least the
// server's clock in microseconds, so even a Redis that lost its counter
// issues larger tokens than before, unless its clock stepped back past the
// time of the lost grants. Tokens are therefore large numbers (about
// 1.8e15), exact up to 2^53, where Lua's numbers end.
//
// The go-redis client needs MaxRetries: -1: a script retried after a lost
// reply may act twice (a Release that succeeded reports ErrLost on its
// retry; an Acquire issues a second token), and the elector retries on its
// own schedule. It also needs ContextTimeoutEnabled: true, or go-redis
// ignores context deadlines and a request on a stalled connection blocks
// until ReadTimeout. New refuses a client without both.
//
// Tokens above 2^53 (about 9e15, reached by the microsecond clock around
// the year 2255) would lose precision in Lua and in JSON or JavaScript
// consumers; until then they are exact as float64 too.
//
// An expiry publishes nothing (keyspace notifications are off by default
// and are fire-and-forget too): standbys find an expired lease by polling.
//
// # Clocks
//
// Redis expires the lease key by its wall clock (PX stores an absolute
// Unix time), and tokens start from its TIME. A forward step of the Redis
// host's clock ends live terms early (two leaders, which only fencing
// catches); a backward step delays failover, and after a lost counter can
// issue tokens again (see Tokens across restarts). Keep the Redis host's
// clock slewed, never stepped, while leases are live. See the elector
// package's "Clocks" section for the candidates' side.
package redisstore
