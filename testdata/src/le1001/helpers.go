package le1001

import (
	"context"
	"database/sql"
	"os"
	"time"
)

type pgStore struct{ db *sql.DB }

// exec runs the statement its caller hands it and returns the rows it
// affected.
func (s *pgStore) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// run runs the statement its caller hands it; only the error comes back.
func (s *pgStore) run(ctx context.Context, q string, args ...any) error {
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

const claimDigest = `UPDATE schedules SET next_run = now() + interval '1 hour' WHERE name = 'digest' AND next_run <= now()`

// Negative: the claim goes through a helper that returns the affected rows,
// and they gate the work.
func (s *pgStore) claimedDigest(ctx context.Context) {
	for range time.Tick(time.Hour) {
		n, err := s.exec(ctx, claimDigest)
		if err != nil || n == 0 {
			continue
		}
		s.run(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// Positive twin: the helper's answer is dropped.
func (s *pgStore) uncheckedDigest(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it updates table schedules \(via le1001.\(\*pgStore\).exec\), inserts into table digests \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		s.exec(ctx, claimDigest)
		s.run(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// Positive twin: the helper that runs the claim does not return its answer.
func (s *pgStore) blindDigest(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it updates table schedules \(via le1001.\(\*pgStore\).run\), inserts into table digests \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		if err := s.run(ctx, claimDigest); err != nil {
			continue
		}
		s.run(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// Negative: a heartbeat through the helper, keyed by the host name.
func (s *pgStore) beat(ctx context.Context) {
	host, _ := os.Hostname()
	for range time.Tick(10 * time.Second) {
		s.run(ctx, `UPDATE instances SET last_seen = now() WHERE host = $1`, host)
	}
}

// Positive twin: the same through the helper, keyed by a constant.
func (s *pgStore) beatShared(ctx context.Context) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it updates table instances \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		s.run(ctx, `UPDATE instances SET last_seen = now() WHERE host = $1`, "web-1")
	}
}

// Negative: the statement is this function's own parameter: unknown here.
func (s *pgStore) runEvery(ctx context.Context, q string) {
	for range time.Tick(time.Hour) {
		s.run(ctx, q)
	}
}

// ran reports whether the statement ran, not what it changed.
func (s *pgStore) ran(ctx context.Context, q string) bool {
	_, err := s.db.ExecContext(ctx, q)
	return err == nil
}

// Positive twin of claimedDigest: the helper's answer is checked, but it is
// whether the statement ran, not whether this replica won.
func (s *pgStore) ranDigest(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it updates table schedules \(via le1001.\(\*pgStore\).ran\), inserts into table digests \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		if !s.ran(ctx, claimDigest) {
			continue
		}
		s.run(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
	}
}

// relay hands its statement on to run.
func (s *pgStore) relay(ctx context.Context, q string) { s.run(ctx, q) }

// Positive: the statement reaches the database two helpers down.
func (s *pgStore) relayed(ctx context.Context) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table relays \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		s.relay(ctx, `INSERT INTO relays (at) VALUES (now())`)
	}
}

// query runs the query its caller hands it.
func (s *pgStore) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, q, args...)
}

// Negative: a SKIP LOCKED claim through the query helper splits the work.
func (s *pgStore) claimBatch(ctx context.Context) {
	for range time.Tick(time.Minute) {
		rows, err := s.query(ctx, `SELECT id FROM outbox WHERE sent = false LIMIT 10 FOR UPDATE SKIP LOCKED`)
		if err != nil {
			continue
		}
		rows.Close()
		s.run(ctx, `INSERT INTO deliveries (at) VALUES (now())`)
	}
}

// Positive twin: a plain select through the helper claims nothing.
func (s *pgStore) readBatch(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table deliveries \(via le1001.\(\*pgStore\).run\); guarded by nothing`
		rows, err := s.query(ctx, `SELECT id FROM outbox WHERE sent = false LIMIT 10`)
		if err != nil {
			continue
		}
		rows.Close()
		s.run(ctx, `INSERT INTO deliveries (at) VALUES (now())`)
	}
}

// Positive: a query that writes (UPDATE ... RETURNING) through the helper.
func (s *pgStore) bumpBatch(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it increments table outbox \(via le1001.\(\*pgStore\).query\); guarded by nothing`
		rows, err := s.query(ctx, `UPDATE outbox SET tries = tries + 1 WHERE sent = false RETURNING id`)
		if err == nil {
			rows.Close()
		}
	}
}
