package le1002

import (
	"database/sql"
	"flag"
	"os"
	"strings"
	"time"
)

type Options struct {
	SchedulerEnabled bool
	CacheWarmup      bool
}

func (o *Options) HasSchedulerService() bool { return o.SchedulerEnabled }

var runCron = flag.Bool("run-cron", false, "run the cron jobs on this instance")

// Positive: an environment variable picks the instance (miniflux-style, the
// designation one caller up).
func Serve(db *sql.DB, opts *Options) {
	if os.Getenv("RUN_SCHEDULER") == "true" {
		go refreshLoop(db)
	}
	if opts.HasSchedulerService() {
		go cleanupLoop(db)
	}
	if *runCron {
		go nightly(db)
	}
	if opts.CacheWarmup {
		go warm(db) // not a designation word, and read-only anyway
	}
}

func refreshLoop(db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body only where os.Getenv\("RUN_SCHEDULER"\) enables it: it updates table feeds`
		db.Exec(`UPDATE feeds SET checked_at = now(), failures = 0 WHERE next_check < now()`)
	}
}

func cleanupLoop(db *sql.DB) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body only where config HasSchedulerService\(\) enables it: it inserts into table archive`
	for range t.C {
		db.Exec(`INSERT INTO archive SELECT * FROM entries WHERE read`)
	}
}

func nightly(db *sql.DB) {
	for { // want `for loop paced by time.Sleep runs loop body only where flag.Bool\("run-cron"\) enables it`
		db.Exec(`INSERT INTO reports (day) VALUES (current_date)`)
		time.Sleep(24 * time.Hour)
	}
}

func warm(db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.Query(`SELECT * FROM feeds`)
	}
}

// Positive: an ordinal compare on the hostname.
func StatefulSet(db *sql.DB) {
	hostname, _ := os.Hostname()
	if strings.HasSuffix(hostname, "-0") {
		for range time.Tick(time.Hour) { // want `only where os.Hostname enables it`
			db.Exec(`DELETE FROM invoices WHERE draft`)
		}
	}
}

// Negative: a feature toggle every replica shares is not a designation
// (the work is LE1001's finding).
func Webhooks(db *sql.DB) {
	if url := os.Getenv("SLACK_WEBHOOK_URL"); url != "" {
		for range time.Tick(time.Minute) {
			db.Exec(`INSERT INTO notifications (channel) VALUES ('slack')`)
		}
	}
}

// Negative: the designation guards idempotent work only.
func Purge(db *sql.DB) {
	if os.Getenv("RUN_SCHEDULER") == "true" {
		for range time.Tick(time.Hour) {
			db.Exec(`DELETE FROM sessions WHERE expires_at < now()`)
		}
	}
}

// Negative: a feature flag that is not a designation word.
func Metrics(db *sql.DB, opts *Options) {
	if opts.CacheWarmup {
		for range time.Tick(time.Minute) {
			db.Exec(`INSERT INTO samples (at) VALUES (now())`) // LE1001, not LE1002
		}
	}
}
