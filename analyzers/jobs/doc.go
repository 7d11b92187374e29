// Package jobs finds the scheduled and background work of a package: every
// site that runs work periodically (tickers, time.Tick, re-armed timers,
// for+Sleep and time.After loops, cron and gocron registrations, wait.Until,
// the asynq Scheduler, and project helpers that schedule a function
// parameter), the work each one runs, what that work does to shared state
// (package effects), and what guards it: coordination that makes it safe, a
// process-local guard that does not, a static designation of one instance,
// or a per-replica declaration.
//
// The singleton-work rules (LE1001 localsingleton, LE1002 staticleader,
// LE2001 competingschedulers) and the inventory report all read this one
// result, so the package is walked once.
package jobs
