// Package effects computes what code does to shared state outside the
// process: the shared-state effects (SQL writes, Redis writes, messages,
// email, non-GET HTTP) that a function or a piece of code reaches, directly
// or through calls, with their kind, resource and idempotency; and the
// coordination it takes before them (locks, leader checks, advisory locks,
// SKIP LOCKED and compare-and-set claims, Redis pops and scripts that move
// items out of a shared key: scriptclaim.go).
//
// Every package-level function and method gets a Summary, exported as a fact,
// so a job in one package that calls store.(*Store).ChargeDue in another is
// known to insert into charges. Only calls whose callee is known count:
// statically, or through value flow (SSA, built lazily in flow.go) when a
// function value held in a field or variable denotes one function. Other
// dynamic calls have no effect, which keeps the rules precise.
//
// Effects are three-valued: accumulating (an insert without a key, an
// increment, a send), idempotent (a set to a value, a delete by predicate, an
// upsert), and unknown (a statement the analysis cannot read). Only the first
// is evidence for a default report (Effect.Duplicates). A statement that is a
// parameter of its function is linked to it (Effect.Stmt) and read at the
// function's call sites. A claim (a conditional write, a try-lock)
// coordinates only when its answer gates the work (gate.go); so does a
// read keyed by the instance's identity (the queued rows assigned to this
// worker) whose rows gate or key the work.
//
// A read-modify-write is an accumulating effect wherever the store is
// (readmodifywrite.go): within one function, a value read through a call on
// a receiver R (its result, a field of it, what is scanned from it) reaches
// through an increment (x+n, x++, append, big.Int Add/SetInt64) an argument
// of another call on the same R. Read and write are told apart by use, not
// by name: the read is the call whose non-error result carries the value,
// the write the call that receives the incremented value and whose answer
// carries no data that is used (an error, a status, nothing), or that the
// knowledge base classifies as a write; a call that takes the moved-on
// value and returns data that is used is a read (the next page). Method
// names only break a tie for a used bool answer (Has, Exists, Is, Contains
// read). It is coordinated when the read is SELECT ... FOR UPDATE in the
// transaction that writes, or when the write takes the old value or a
// version read with it and its answer is checked; per-replica when keyed by
// the instance's identity; no effect when the store is process-local as far
// as the analysis can tell (a standard-library type, a store of this
// package or an implementation in sight that reaches no shared state, a
// concrete type of another package whose write reaches none and that holds
// no network connection (a write-ahead log on the local disk), a write
// that cannot fail). Through a store whose write it cannot read (an
// interface with no implementation in sight, a network client of another
// package), the write must take a value of the type the read returned, or
// of its elements: the value read goes back. A value of another type
// derived from the read (the revision after the last row, an offset past a
// page) may be the key of a new record, which conflicts instead of losing
// an update: unknown, shown under the strict profile.
package effects
