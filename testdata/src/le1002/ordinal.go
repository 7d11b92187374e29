package le1002

import (
	"context"
	"database/sql"
	"time"
)

// Endpoint is one member of a pool; IsLocal says it is this process.
type Endpoint struct {
	Host    string
	IsLocal bool
}

type Pool struct{ Endpoints []Endpoint }

type Member struct{ ID string }

func (m Member) Self() bool { return false }

type Settings struct {
	InstanceIndex int
	Retries       int
}

// Positive: only the pool's first endpoint runs the rebalance (early exit
// inside the loop over pools).
func StartRebalance(db *sql.DB, pools []Pool) {
	for i := range pools {
		if !pools[i].Endpoints[0].IsLocal {
			continue
		}
		go rebalance(db)
	}
}

func rebalance(db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body only where the first member of a cluster list \(pools\[i\].Endpoints\[0\].IsLocal\) enables it`
		db.Exec(`UPDATE buckets SET pool = 2 WHERE pool = 1`)
	}
}

// Positive: the first node of a name list compared with this node's name.
func FirstNode(db *sql.DB, nodes []string, self string) {
	if len(nodes) > 0 && nodes[0] == self {
		for range time.Tick(time.Hour) { // want `only where the first member of a cluster list \(nodes\[0\] == self\) enables it`
			db.Exec(`DELETE FROM sessions WHERE expired`)
		}
	}
}

// Positive: the first member's ID compared with the process's own ID.
func FirstID(db *sql.DB, members []Member, myID string) {
	if members[0].ID == myID {
		t := time.NewTicker(time.Hour) // want `only where the first member of a cluster list \(members\[0\].ID == myID\) enables it`
		for range t.C {
			db.Exec(`INSERT INTO digests (day) VALUES (current_date)`)
		}
	}
}

// Positive: a method on the first member says it is this process.
func FirstSelf(db *sql.DB, members []Member) {
	if members[0].Self() {
		for range time.Tick(time.Hour) { // want `only where the first member of a cluster list \(members\[0\].Self\) enables it`
			db.Exec(`DELETE FROM uploads WHERE stale`)
		}
	}
}

// Positive: the instance's own ordinal from its settings.
func Ordinal(db *sql.DB, cfg *Settings) {
	if cfg.InstanceIndex == 0 {
		for range time.Tick(time.Hour) { // want `only where the instance ordinal \(cfg.InstanceIndex == 0\) enables it`
			db.Exec(`UPDATE invoices SET overdue = true WHERE due < now()`)
		}
	}
}

// Negative twin of Ordinal: a setting that is not the instance's ordinal.
func Retries(db *sql.DB, cfg *Settings) {
	if cfg.Retries == 0 {
		for range time.Tick(time.Hour) {
			db.Exec(`UPDATE invoices SET flagged = true WHERE due < now()`)
		}
	}
}

// Negative twin of Ordinal: an early exit on ordinal 0 leaves the work to
// every other instance.
func NotZero(db *sql.DB, cfg *Settings) {
	if cfg.InstanceIndex == 0 {
		return
	}
	for range time.Tick(time.Hour) {
		db.Exec(`UPDATE carts SET abandoned = true WHERE idle`)
	}
}

// Negative twin of FirstNode: index 0 of a list that is not compared with
// the process's own identity.
func FirstRegion(db *sql.DB, regions []string, wanted string) {
	if regions[0] == wanted {
		for range time.Tick(time.Hour) {
			db.Exec(`DELETE FROM caches WHERE region_stale`)
		}
	}
}

// Negative twin of StartRebalance: the first endpoint's local flag is read,
// but the work runs on every replica.
func EveryReplica(db *sql.DB, pools []Pool) {
	local := pools[0].Endpoints[0].IsLocal
	_ = local
	go rebalance2(db)
}

func rebalance2(db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.Exec(`UPDATE buckets SET pool = 3 WHERE pool = 1`)
	}
}

// Negative twin of StartRebalance: the first member is designated, but each
// round also takes an advisory lock.
func LockedFirst(ctx context.Context, db *sql.DB, pools []Pool) {
	if pools[0].Endpoints[0].IsLocal {
		for range time.Tick(time.Minute) {
			tx, _ := db.BeginTx(ctx, nil)
			var ok bool
			tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7)`).Scan(&ok)
			if !ok {
				tx.Rollback()
				continue
			}
			tx.ExecContext(ctx, `UPDATE buckets SET pool = 4 WHERE pool = 1`)
			tx.Commit()
		}
	}
}
