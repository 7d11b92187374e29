package le1001

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Positive twin of heartbeat: the key is a constant, so every replica
// rewrites one shared row instead of its own.
func heartbeatConstKey(db *sql.DB) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it updates table instances; guarded by nothing`
		db.Exec(`UPDATE instances SET last_seen = now() WHERE host = $1`, "web-1")
	}
}

// registry rows are keyed by the pod's own name.
type registry struct {
	db    *sql.DB
	table string
	key   string
}

func newRegistry(db *sql.DB, table string) *registry {
	return &registry{db: db, table: table, key: os.Getenv("POD_NAME")}
}

// Negative: the heartbeat is keyed by a field initialised from POD_NAME; its
// table name is formatted in with %s.
func (r *registry) beat(ctx context.Context) {
	t := time.NewTicker(15 * time.Second)
	for range t.C {
		r.db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET last_update = now() WHERE registration_id = $1", r.table), r.key)
	}
}

// sharedRegistry has the same shape, keyed by a constant.
type sharedRegistry struct {
	db    *sql.DB
	table string
	key   string
}

func newSharedRegistry(db *sql.DB) *sharedRegistry {
	return &sharedRegistry{db: db, table: "registrations", key: "primary"}
}

// Positive twin of registry.beat: the key field holds a constant, and the
// table name folds from the field's only value.
func (r *sharedRegistry) beat(ctx context.Context) {
	t := time.NewTicker(15 * time.Second) // want `time.NewTicker runs loop body on every replica every 15s: it updates table registrations; guarded by nothing`
	for range t.C {
		r.db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET last_update = now() WHERE registration_id = $1", r.table), r.key)
	}
}

// Positive twin of coordinated: the try-lock's answer is scanned and never
// tested, so every replica goes on to insert.
func coordinatedUnchecked(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table invoices; guarded by nothing`
		tx, _ := db.BeginTx(ctx, nil)
		var ok bool
		tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(42)`).Scan(&ok)
		tx.ExecContext(ctx, `INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due`)
		tx.Commit()
	}
}

// Positive twin of casClaim: the compare-and-set runs, its RowsAffected is
// never looked at, and every replica sends the digest.
func casUnchecked(ctx context.Context, db *sql.DB, prev time.Time) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it updates table schedules, inserts into table digests; guarded by nothing`
		db.ExecContext(ctx, `UPDATE schedules SET next_run = $1 WHERE name = 'digest' AND next_run = $2`, time.Now(), prev)
		db.ExecContext(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// Positive twin of casClaim: only the error is checked, which says the
// statement ran, not that this replica won.
func casErrorOnly(ctx context.Context, db *sql.DB, prev time.Time) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it updates table schedules, inserts into table digests; guarded by nothing`
		_, err := db.ExecContext(ctx, `UPDATE schedules SET next_run = $1 WHERE name = 'digest' AND next_run = $2`, time.Now(), prev)
		if err != nil {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

const runClaim = `INSERT INTO job_runs (name, last) VALUES ($1, now())
	ON CONFLICT (name) DO UPDATE SET last = now() WHERE job_runs.last < now() - $2::interval`

// claims keeps its claim statement in a field.
type claims struct {
	db   *sql.DB
	stmt string
}

func newClaims(db *sql.DB) *claims { return &claims{db: db, stmt: runClaim} }

// tryRun reports whether this replica won the run: the conditional upsert
// changes the row for one runner per interval.
func (c *claims) tryRun(ctx context.Context, name string) bool {
	res, err := c.db.ExecContext(ctx, c.stmt, name, "1 hour")
	if err != nil {
		return false
	}
	n, _ := res.RowsAffected()
	return n == 1
}

// Negative: the claim, read from a struct field inside a helper, gates the
// rollup.
func (c *claims) rollupClaimed(ctx context.Context) {
	for range time.Tick(time.Hour) {
		if !c.tryRun(ctx, "rollup") {
			continue
		}
		c.db.ExecContext(ctx, `INSERT INTO rollups (at) VALUES (now())`)
	}
}

// Positive twin: the helper's answer is dropped.
func (c *claims) rollupIgnored(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table rollups; guarded by nothing`
		c.tryRun(ctx, "rollup")
		c.db.ExecContext(ctx, `INSERT INTO rollups (at) VALUES (now())`)
	}
}

// blindClaims upserts without a condition: every runner changes the row.
type blindClaims struct {
	db   *sql.DB
	stmt string
}

func newBlindClaims(db *sql.DB) *blindClaims {
	return &blindClaims{db: db, stmt: `INSERT INTO job_runs (name, last) VALUES ($1, now()) ON CONFLICT (name) DO UPDATE SET last = now()`}
}

// Positive twin of rollupClaimed: the checked statement is no claim (its
// upsert has no WHERE, so every replica affects one row).
func (c *blindClaims) rollup(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table rollups; guarded by nothing`
		res, err := c.db.ExecContext(ctx, c.stmt, "rollup")
		if err != nil {
			continue
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue
		}
		c.db.ExecContext(ctx, `INSERT INTO rollups (at) VALUES (now())`)
	}
}

// Negative: a statement handed in by the caller cannot be read here. An
// unknown write is no evidence (the strict profile shows it).
func runStatement(ctx context.Context, db *sql.DB, q string) {
	for range time.Tick(time.Hour) {
		db.ExecContext(ctx, q)
	}
}

const auditTable = "audit_log"

// Positive twin of runStatement: a statement formatted from a constant
// format and a constant table name is read.
func audit(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table audit_log; guarded by nothing`
		db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (at) VALUES (now())", auditTable))
	}
}

type archiver struct {
	db    *sql.DB
	table string
}

func newArchiver(db *sql.DB) *archiver { return &archiver{db: db, table: "archive"} }

// Positive twin of runStatement: a statement concatenated around a field
// that holds one constant is read.
func (a *archiver) run(ctx context.Context, q string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table archive; guarded by nothing`
		a.db.ExecContext(ctx, "INSERT INTO "+a.table+" (payload) SELECT payload FROM inbox WHERE done")
	}
}

type session struct{ State string }

type stat struct{ N int }

// Negative: an ORM update to a constant and a delete by predicate converge
// (reported under the strict profile).
func closeStale(db *gorm.DB) {
	for range time.Tick(time.Hour) {
		db.Model(&session{}).Where("seen < ?", time.Now().Add(-time.Hour)).Update("state", "closed")
		db.Where("state = ?", "closed").Delete(&session{})
	}
}

// Negative: ORM writes whose values are not in sight are unknown, not
// accumulating.
func saveAll(db *gorm.DB, s *session) {
	for range time.Tick(time.Hour) {
		db.Save(s)
		db.Model(s).Updates(s)
		db.Model(s).Update("state", s.State)
	}
}

// Positive twin of closeStale: an update that adds to the column.
func countSessions(db *gorm.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it increments; guarded by nothing`
		db.Model(&stat{}).Update("n", gorm.Expr("n + ?", 1))
	}
}

// Negative: a heartbeat table whose key comes from a parameter the analysis
// cannot follow: most likely this instance's row.
func touchInstance(db *sql.DB, id string) {
	for range time.Tick(10 * time.Second) {
		db.Exec(`UPDATE instances SET last_seen = now() WHERE id = $1`, id)
	}
}

// Positive twin: the same out-of-sight key on a table that records no
// instance.
func touchAccount(db *sql.DB, id string) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it updates table accounts; guarded by nothing`
		db.Exec(`UPDATE accounts SET seen = now() WHERE id = $1`, id)
	}
}

// worker rows are keyed by an ID the worker mints for itself at start.
type worker struct {
	db *sql.DB
	id string
}

func newWorker(db *sql.DB) *worker { return &worker{db: db, id: uuid.New().String()} }

// Negative: the heartbeat is keyed by the worker's own minted ID.
func (w *worker) beat(ctx context.Context) {
	for range time.Tick(10 * time.Second) {
		w.db.ExecContext(ctx, `UPDATE workers SET seen = now() WHERE id = $1`, w.id)
	}
}

// Positive twin: a fresh ID on every run is a new row every run.
func (w *worker) ping(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it inserts into table pings; guarded by nothing`
		w.db.ExecContext(ctx, `INSERT INTO pings (id, at) VALUES ($1, now())`, uuid.NewString())
	}
}

type lockedRun struct {
	db  *sql.DB
	won bool
}

// Negative: the try-lock's answer is kept in a field and tested in a
// tagless switch.
func (l *lockedRun) run(ctx context.Context) {
	for range time.Tick(time.Minute) {
		tx, _ := l.db.BeginTx(ctx, nil)
		var ok bool
		tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7)`).Scan(&ok)
		l.won = ok
		switch {
		case !l.won:
			tx.Rollback()
			continue
		}
		tx.ExecContext(ctx, `INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due`)
		tx.Commit()
	}
}

// Positive twin: the switch tests something else.
func (l *lockedRun) runUnchecked(ctx context.Context, paused bool) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table invoices; guarded by nothing`
		tx, _ := l.db.BeginTx(ctx, nil)
		var ok bool
		tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7)`).Scan(&ok)
		l.won = ok
		switch {
		case paused:
			tx.Rollback()
			continue
		}
		tx.ExecContext(ctx, `INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due`)
		tx.Commit()
	}
}
