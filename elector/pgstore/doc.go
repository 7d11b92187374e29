// Package pgstore is an elector.Store on PostgreSQL through pgx v5.
//
// Leases live in one ordinary (logged) table, one row per lease name:
//
//	CREATE TABLE IF NOT EXISTS gatesift_leases (
//		name       text        PRIMARY KEY,
//		holder     text        NOT NULL,
//		token      bigint      NOT NULL CHECK (token > 0),
//		expires_at timestamptz NOT NULL,
//		granted_at timestamptz NOT NULL
//	);
//
// Create it with the store's Migrate method, or apply that statement (Schema returns it for a
// custom table name, see WithTable) with your own migration tool. Never
// delete or truncate rows: a row's token column is the lease's fencing token
// counter, and a deleted row would start again at 1.
//
// How it keeps the elector.Store rules:
//
//   - Expiry is judged by the database clock, now(), in the same statement
//     that acts on it; the candidates' clocks are never compared.
//   - Acquire is one INSERT ... ON CONFLICT DO UPDATE ... WHERE the lease is
//     expired or held by the same holder, incrementing token in place. The
//     row lock serializes competitors; the table being logged makes tokens
//     survive crashes (a commit is acknowledged only once its WAL has been
//     written, and with fsync on, flushed).
//   - Renew and Release are UPDATEs scoped to the term:
//     WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now().
//     Release sets expires_at to now() and keeps the row and its token.
//   - Every operation is a single autocommit statement on any pooled
//     connection: no session state, no session advisory locks, so any
//     pgxpool connection serves any call. (Not tested behind PgBouncer: in
//     transaction mode it needs PgBouncer 1.21+ or pgx's simple protocol
//     for pgx's prepared statements, and Watch's LISTEN needs a direct or
//     session-mode connection.)
//   - Acquire and Release call pg_notify in the same statement; Watch
//     LISTENs on a dedicated connection, so a standby is woken within
//     milliseconds of a release. The channel is the table name.
//
// Fencing: a token is only useful if the resource checks it. When the
// resource is in the same database, add FencePredicate to the write's WHERE
// or run the writes in InTerm; both share-lock the lease row, so no write of
// an ended term can commit after a successor was granted. For a resource in
// another database, keep a token high-water mark next to the data and make
// every write conditional on it (elector.FenceSQL builds the clauses):
//
//	UPDATE jobs SET state = $1, fence_token = $2
//	WHERE id = $3 AND fence_token <= $2
//
// which rejects a write from any older term once a newer one has written.
//
// A transaction holding the lease row's share lock (InTerm, or
// FencePredicate inside a longer transaction) blocks every Acquire, Renew
// and Release of that lease until it ends, including a standby's takeover
// when the leader process froze mid-transaction. Set
// idle_in_transaction_session_timeout (and keep such transactions short)
// so the server ends a frozen leader's transaction; a single-statement
// write with FencePredicate holds the lock only while it executes.
//
// What it does not do: an expiry without a release notifies nobody (the
// candidates poll at their retry interval), and a failover to an
// asynchronous replica can lose the most recent grants; with synchronous
// replication, or a single primary, tokens never go back.
//
// # Clocks
//
// Expiry is judged by the database server's wall clock (now()). A forward
// step of that clock ends live terms early, so another candidate can be
// granted the lease while the holder still believes it leads: keep the
// server's clock disciplined by slewing (NTP, chrony with makestep only at
// boot), or fence every write. A backward step only delays failover. A
// suspended database server answers nothing, so nobody is granted anything
// meanwhile. The candidates' wall clocks never matter; see the elector
// package's "Clocks" section for the candidates' monotonic clocks.
package pgstore
