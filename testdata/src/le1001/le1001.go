package le1001

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"net/smtp"
	"os"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/wait"
)

// Positive: the issue's own example.
func billing(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table invoices; guarded by nothing`
		db.ExecContext(ctx, "INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due")
	}
}

// Positive: a ticker whose loop is in a goroutine, sending email.
func digest(db *sql.DB) {
	t := time.NewTicker(24 * time.Hour) // want `time.NewTicker runs loop body on every replica every 24h0m0s: it sends`
	go func() {
		for range t.C {
			smtp.SendMail("mail:25", nil, "noreply@example.com", []string{"all@example.com"}, []byte("digest"))
		}
	}()
}

var once sync.Once

// Positive: a sync.Once keeps the report single inside one process only.
func monthlyReport(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it updates table reports; guarded only by sync.Once.Do`
	defer t.Stop()
	for { // the ticker, not this loop, is the site
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			once.Do(func() {
				db.Exec(`UPDATE reports SET generated = true, n = 1 WHERE month = $1`, time.Now().Month())
			})
		}
	}
}

var mu sync.Mutex

// Positive: a for+Sleep loop guarded by a mutex that is process-local.
func rollup(db *sql.DB) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 5m0s: it increments table counters; guarded only by sync.Mutex.Lock`
		mu.Lock()
		db.Exec(`UPDATE counters SET n = n + 1 WHERE name = 'rollups'`)
		mu.Unlock()
		time.Sleep(5 * time.Minute)
	}
}

// Positive: robfig/cron with a named function, and a POST webhook.
func schedule(c *cron.Cron) {
	c.AddFunc("@hourly", notify) // want `cron.Cron.AddFunc runs le1001.notify on every replica on "@hourly": it sends HTTP POST`
}

func notify() {
	req, _ := http.NewRequest(http.MethodPost, "https://hooks.example.com/x", bytes.NewReader(nil))
	http.DefaultClient.Do(req)
}

// Positive: wait.Until from apimachinery.
func reconcile(db *sql.DB, stop <-chan struct{}) {
	wait.Until(func() { // want `wait.Until runs func literal on every replica every 30s: it deletes from table orphans`
		db.Exec(`DELETE FROM orphans WHERE owner_id IS NULL`)
	}, 30*time.Second, stop)
}

// Negative: idempotent only (reported under the strict profile).
func purge(db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.Exec(`DELETE FROM sessions WHERE expires_at < now()`)
	}
}

// Negative: an upsert.
func touch(db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.Exec(`INSERT INTO stats (k, v) VALUES ('x', 1) ON CONFLICT (k) DO NOTHING`)
	}
}

// Negative: read-only loop (a cache refresh).
func refreshCache(db *sql.DB, cache map[string]int) {
	for range time.Tick(time.Minute) {
		rows, _ := db.Query(`SELECT name, n FROM counters`)
		rows.Close()
	}
}

// Negative: a heartbeat keyed by the instance itself is per-replica.
func heartbeat(db *sql.DB) {
	host, _ := os.Hostname()
	for range time.Tick(10 * time.Second) {
		db.Exec(`UPDATE instances SET last_seen = now() WHERE host = $1`, host)
	}
}

// Negative: a transaction-scoped advisory lock coordinates the replicas.
func coordinated(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) {
		tx, _ := db.BeginTx(ctx, nil)
		var ok bool
		tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(42)`).Scan(&ok)
		if !ok {
			tx.Rollback()
			continue
		}
		tx.ExecContext(ctx, `INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due`)
		tx.Commit()
	}
}

// Negative: a compare-and-set claim checked through RowsAffected.
func casClaim(ctx context.Context, db *sql.DB, prev time.Time) {
	for range time.Tick(time.Minute) {
		res, _ := db.ExecContext(ctx, `UPDATE schedules SET next_run = $1 WHERE name = 'digest' AND next_run = $2`, time.Now(), prev)
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// Negative: a retry loop is not periodic work.
func connect(db *sql.DB) {
	for {
		_, err := db.Exec(`INSERT INTO boot (at) VALUES (now())`)
		if err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// Negative: declared per-replica.
//
//gatesift:per-replica -- each replica compacts its own local spool table
func compact(db *sql.DB) {
	for range time.Tick(time.Hour) {
		db.Exec(`DELETE FROM spool WHERE done`)
	}
}

// Suppressed with a reason.
func legacy(db *sql.DB) {
	//gatesift:ignore LE1001 -- runs in a single-replica deployment until the elector migration
	for range time.Tick(time.Hour) {
		db.Exec(`INSERT INTO legacy_runs (at) VALUES (now())`)
	}
}

// Negative: the work is a function value we cannot see into.
func dynamic(fn func()) {
	for range time.Tick(time.Hour) {
		fn()
	}
}
