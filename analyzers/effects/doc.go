// Package effects computes what code does to shared state outside the
// process: the shared-state effects (SQL writes, Redis writes, messages,
// email, non-GET HTTP) that a function or a piece of code reaches, directly
// or through calls, with their kind, resource and idempotency; and the
// coordination it takes before them (locks, leader checks, advisory locks,
// SKIP LOCKED and compare-and-set claims).
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
// coordinates only when its answer gates the work (gate.go).
package effects
