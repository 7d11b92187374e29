// Package competingschedulers defines the LE2001 analyzer: two or more
// distinct scheduler sites in one program act on the same shared resource
// without a common coordinator.
//
// # Analyzer competingschedulers
//
// competingschedulers: two scheduler sites act on the same shared resource
// without a common coordinator.
//
// Two jobs that write the same table, Redis key prefix or queue interleave
// their effects: a cleanup deletes what a reconciler is about to update, two
// enqueuers schedule the same task. On several replicas the pair becomes
// 2N writers. The resource comes from constant-folded evidence only (SQL
// table names, constant key prefixes, queue names); non-constant keys give
// no report.
//
// Sites in different packages meet through package facts that fold each
// package's sites upward to its importers. The pair is reported once, in
// the deepest package that sees both sites: at the second site in source
// order, or, when a site lives in an imported package, at the call in the
// importing package that starts it. Related information points at the other
// site and the shared resource. Pairs where both jobs are coordinated,
// per-replica or consumers are not reported, nor pairs whose writes to the
// shared resource commute: both only delete from it, or both only
// increment it, so the order they land in does not change the result.
package competingschedulers
