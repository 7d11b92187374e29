package le1001

import (
	"context"
	"database/sql"
	"time"
)

// A job that claims rows (a compare-and-set UPDATE ... RETURNING) and then
// writes only the rows keyed by the IDs the claim returned: two replicas
// never claim the same row, so each writes its own rows. The claim's
// answer gates the work by keying it, not by an if.

const claimOutbox = `UPDATE outbox SET status = 'sending', claimed_at = now() WHERE status = 'pending' RETURNING id`

// Negative: the writes are keyed by the IDs the claim returned.
func flushClaimedOutbox(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) {
		rows, err := db.QueryContext(ctx, claimOutbox)
		if err != nil {
			continue
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if rows.Scan(&id) == nil {
				ids = append(ids, id)
			}
		}
		rows.Close()
		for _, id := range ids {
			db.ExecContext(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1 WHERE id = $1`, id)
		}
	}
}

// Positive twin: the same write keyed by IDs from a SELECT that claims
// nothing; every replica reads the same pending rows and writes them.
func flushReadOutbox(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it increments table outbox; guarded by nothing`
		rows, err := db.QueryContext(ctx, `SELECT id FROM outbox WHERE status = 'pending'`)
		if err != nil {
			continue
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if rows.Scan(&id) == nil {
				ids = append(ids, id)
			}
		}
		rows.Close()
		for _, id := range ids {
			db.ExecContext(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1 WHERE id = $1`, id)
		}
	}
}

// Positive twin: the claim runs and its IDs are read, but the write is not
// keyed by them: it counts every row in the sending state, this replica's
// claim and the others' alike.
func flushUnkeyedOutbox(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it updates table outbox, increments table outbox; guarded by nothing`
		rows, err := db.QueryContext(ctx, claimOutbox)
		if err != nil {
			continue
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if rows.Scan(&id) == nil {
				ids = append(ids, id)
			}
		}
		rows.Close()
		db.ExecContext(ctx, `UPDATE outbox SET attempts = attempts + 1 WHERE status = 'sending'`)
		_ = ids
	}
}
