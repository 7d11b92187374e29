// Package unsafeunlock defines the LE3002 analyzer: a lock release that does
// not check ownership, or a session-level lock taken through a connection
// pool.
//
// # Analyzer unsafeunlock
//
// unsafeunlock: report releases that can free another replica's lock.
//
// A lock with a TTL can expire while its holder still works (a GC pause, a
// slow query); another replica then takes it. If the first holder releases
// with a plain DEL, it deletes the second holder's lock and a third replica
// starts the same work. The analyzer reports, at the release call:
//
//   - go-redis Del/Unlink/GetDel and raw Do("DEL", k) (redigo conn.Do too)
//     of a key the same function, type or package acquires as a lock (same
//     constant key, or the same expression); a GET of the key before the
//     delete is reported too, as a check that is not atomic with it;
//   - DELETE FROM a lock-like table, or UPDATE ... SET owner = NULL, that
//     selects the row by name only, with no owner or token predicate;
//   - the Unlock/Release of a lock the project writes itself (a row or
//     document inserted on a unique key by a Lock/Acquire of the same
//     type, as LE3001 reads it) that deletes it by key only, in SQL text or
//     a builder chain (a column bound as bun.Ident counts as named; upper/db
//     chains and db.Cond conditions included), written in its body or one
//     call away in another package of the module (a query package's
//     function, or a method of an interface whose only implementation the
//     caller can see: reported at that call), unless it reads the owner
//     first or runs only while an in-process flag the
//     acquire sets says this instance holds the lock;
//   - session-level pg_advisory_lock / pg_try_advisory_lock /
//     pg_advisory_unlock run through a pool (*sql.DB, *pgxpool.Pool,
//     *sqlx.DB): the lock belongs to whichever connection ran it, and the
//     unlock may run on another;
//   - a Lock(key) method whose bool result is discarded, followed by an
//     Unlock(key) that takes only the key: the release runs even when the
//     lock was not taken, and removes the lock of the replica that holds it;
//   - an Azure Blob lease given up with BreakLease (which sends no lease ID)
//     by the code that acquired it: after AcquireLease on the same lease
//     client in the same function, or in an Unlock/Release/Stop/Close method
//     of a type whose other method acquires the same field. A break in code
//     that never acquires (an operator's recovery command), or on the
//     acquire's failure path (taking over a stale lease), is not reported.
//
// Lock files whose content is their expiry (the acquire writes
// time.Now().Add(ttl) into the file and treats a file whose expiry passed
// as free): a release that removes the file (os.Remove, os.RemoveAll)
// without reading it back is reported; a release that reads and compares
// first, and a file rewritten or touched in a loop, are not.
//
// OS advisory locks (flock(2): gofrs/flock New/NewFlock with Lock, TryLock,
// RLock and their variants; syscall.Flock or unix.Flock with LOCK_EX or
// LOCK_SH on a file opened from a path): the lock is held on the open file,
// its inode, not on the path. The removal of the lock file's path (os.Remove
// or os.RemoveAll of the same constant, variable, field, once-assigned
// value, a parameter's callers' paths, the same expression over the same
// variables, or the handle's Path()) is reported, with the acquire as
// related information: after an unlock, a process that opened the old file
// and waits for its lock gets it while a newcomer creates and locks a new
// file at the path; where this process does not hold the lock (a TryLock
// that returned false), the holder keeps the old inode and a newcomer locks
// a new one. Either way two instances hold the lock. Silent: removal of any
// other path, a lock file left in place, and the one safe way to remove
// one: the function that takes the lock re-checks after locking that the
// locked file is still the one at the path (os.SameFile of os.Stat(path)
// and f.Stat()), and the removal runs before the unlock (a later unlock or
// Close, or one deferred before a deferred removal).
//
// A client-go lease held under the host name alone: the value stored into
// resourcelock.ResourceLockConfig.Identity (an owner-identity field of the
// knowledge base) can be os.Hostname()'s result on some path, through string
// transforms, constant joins, fields and helpers of the package
// (effects.HostNameOnly). The election treats a lease whose holder identity
// is its own as its own, so two processes on one host both lead. Reported at
// the resourcelock.New* call the config is passed to, else at the field.
// Silent when a nonce, the pid or any value the package cannot see joins the
// name, and for a pod name read from the environment.
//
// Silent: compare-and-delete scripts (Eval, Script.Run, DELEX IFEQ), a DEL
// inside a WATCH transaction, releases of redislock, redsync and other lock
// handles, pinned connections (*sql.Conn, pgxpool.Conn),
// pg_advisory_xact_lock, and Azure ReleaseLease (it sends the lease ID).
//
// Example:
//
//	ok, _ := rdb.SetNX(ctx, "lock:billing", token, time.Minute).Result()
//	defer rdb.Del(ctx, "lock:billing") // LE3002
//
// Fix: release with a compare-and-delete (a Lua script that deletes the key
// only if it still holds your token), use bsm/redislock or redsync, or the
// project's elector.
package unsafeunlock
