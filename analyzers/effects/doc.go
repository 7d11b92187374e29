// Package effects computes what code does to shared state outside the
// process: the shared-state effects (SQL writes, Redis writes, messages,
// email, non-GET HTTP) that a function or a piece of code reaches, directly
// or through calls, with their kind, resource and idempotency; and the
// coordination it takes before them (locks, leader checks, advisory locks,
// SKIP LOCKED and compare-and-set claims).
//
// Every package-level function and method gets a Summary, exported as a fact,
// so a job in one package that calls store.(*Store).ChargeDue in another is
// known to insert into charges. Only calls whose callee is known statically
// count: dynamic calls through function values and interfaces the knowledge
// base does not name have no effect, which keeps the rules precise.
package effects
