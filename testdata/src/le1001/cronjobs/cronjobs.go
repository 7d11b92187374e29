// Package cronjobs: robfig/cron jobs given as values: a function converted
// to cron.FuncJob, a job decorated by a wrapper chain.
package cronjobs

import (
	"database/sql"

	"github.com/robfig/cron/v3"
)

type mailer struct{ db *sql.DB }

func (m *mailer) Run() {
	m.db.Exec(`INSERT INTO outbox (kind) VALUES ('reminder')`)
}

func (m *mailer) sweep() {
	m.db.Exec(`INSERT INTO outbox (kind) VALUES ('sweep')`)
}

// Positive: a function converted to cron.FuncJob.
func funcJob(c *cron.Cron, m *mailer) {
	c.AddJob("@hourly", cron.FuncJob(m.sweep)) // want `cron.Cron.AddJob runs cronjobs.mailer.sweep on every replica on "@hourly": it inserts into table outbox`
}

// Positive: SkipIfStillRunning keeps one run per process, not per cluster.
func chained(c *cron.Cron, m *mailer, l cron.Logger) {
	c.AddJob("@daily", cron.NewChain(cron.SkipIfStillRunning(l)).Then(m)) // want `cron.Cron.AddJob runs cronjobs.mailer.Run on every replica on "@daily": it inserts into table outbox`
}

// Positive: a FuncJob of a literal, wrapped.
func chainedFunc(c *cron.Cron, db *sql.DB, l cron.Logger) {
	c.AddJob("@daily", cron.NewChain(cron.Recover(l)).Then(cron.FuncJob(func() { // want `cron.Cron.AddJob runs func literal on every replica on "@daily": it inserts into table outbox`
		db.Exec(`INSERT INTO outbox (kind) VALUES ('digest')`)
	})))
}

type reader struct{ db *sql.DB }

func (r *reader) Run() { r.db.Query(`SELECT count(*) FROM outbox`) }

// Negative: the wrapped job only reads (twin: chained).
func chainedReader(c *cron.Cron, r *reader, l cron.Logger) {
	c.AddJob("@daily", cron.NewChain(cron.SkipIfStillRunning(l)).Then(r))
}
