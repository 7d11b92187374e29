// Package staticleader defines the LE1002 analyzer: singleton work enabled
// by a static designation of one instance.
//
// # Analyzer staticleader
//
// staticleader: singleton work is enabled by a static designation of one
// instance.
//
// A hostname or ordinal compare (hostname == "worker-0"), an environment
// variable (RUN_SCHEDULER=true), a flag or a config boolean (EnableCron)
// picks the instance that runs the periodic work. It works until that
// instance dies, when nothing takes over, or until the setting is copied to
// a second deployment, when both run the work. A lease that expires gives
// the same "one instance" with takeover.
//
//	if os.Getenv("RUN_SCHEDULER") == "true" {
//		go runScheduler(db) // the ticker inside is reported
//	}
//
// The finding is reported at the construct that schedules the work, with
// related information at the designation (followed up to two callers up in
// the same package) and at the shared-state effects. Work that is also
// coordinated, per-replica, or idempotent-only (outside the strict profile)
// is not reported.
package staticleader
