package le1001

import (
	"context"
	"database/sql"
	"time"
)

type refresher struct {
	db *sql.DB
	t  *time.Timer
}

// Positive, reported once: Start arms the timer and tick re-arms it with
// the same function; the re-arm is the same job, not a second one.
func (r *refresher) Start() {
	r.t = time.AfterFunc(time.Minute, r.tick) // want `time.AfterFunc runs le1001.refresher.tick on every replica every 1m0s: it inserts into table refreshes; guarded by nothing`
}

func (r *refresher) tick() {
	r.db.Exec(`INSERT INTO refreshes (at) VALUES (now())`)
	r.t = time.AfterFunc(time.Minute, r.tick)
}

type selfArmed struct {
	db *sql.DB
}

// Positive twin: nothing else arms tick, so its own AfterFunc is the site.
func (s *selfArmed) tick() {
	s.db.Exec(`INSERT INTO refreshes (at) VALUES (now())`)
	time.AfterFunc(time.Minute, s.tick) // want `time.AfterFunc runs le1001.selfArmed.tick on every replica every 1m0s: it inserts into table refreshes; guarded by nothing`
}

func announce(db *sql.DB) bool {
	_, err := db.Exec(`INSERT INTO announcements (at) VALUES (now())`)
	return err == nil
}

// Negative: a retry loop (for { try; if ok { break }; sleep }) announces
// once, not periodically.
func announceOnce(db *sql.DB) {
	for {
		if ok := announce(db); ok {
			break
		}
		time.Sleep(time.Second)
	}
}

// Positive twin: the loop leaves only on failure; until then it announces
// every second.
func announceEvery(db *sql.DB) error {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1s: it inserts into table announcements; guarded by nothing`
		if _, err := db.Exec(`INSERT INTO announcements (at) VALUES (now())`); err != nil {
			return err
		}
		time.Sleep(time.Second)
	}
}

func stopped(ctx context.Context) bool { return ctx.Err() != nil }

// Positive twin: the loop leaves only on shutdown.
func announceUntilStopped(ctx context.Context, db *sql.DB) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1s: it inserts into table announcements \(via le1001.announce\); guarded by nothing`
		if stopped(ctx) {
			return
		}
		announce(db)
		time.Sleep(time.Second)
	}
}
