// Package inv has one job per verdict. The comment on each scheduler line
// is the entry the inventory must produce for it: "verdict [rule]".
package inv

import (
	"context"
	"database/sql"
	"net/smtp"
	"os"
	"time"
)

func Start(ctx context.Context, db *sql.DB) {
	// A function that coordinates its own work says nothing about the
	// jobs started after it.
	go coordinated(ctx, db)
	go billing(ctx, db)
	go compact(db)
	go refreshCache(db)
	if os.Getenv("RUN_SCHEDULER") == "true" {
		go digest()
	}
}

func billing(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // inventory: finding LE1001
		db.ExecContext(ctx, "INSERT INTO invoices (account_id) SELECT id FROM accounts WHERE due")
		db.ExecContext(ctx, "UPDATE accounts SET billed = true WHERE due")
	}
}

func coordinated(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Hour) { // inventory: coordinated
		tx, _ := db.BeginTx(ctx, nil)
		var ok bool
		tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7)`).Scan(&ok)
		if !ok {
			tx.Rollback()
			continue
		}
		tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < now()`)
		tx.Commit()
	}
}

//gatesift:per-replica -- each replica compacts its own spool table
func compact(db *sql.DB) {
	for range time.Tick(time.Hour) { // inventory: per-replica
		db.Exec(`DELETE FROM spool WHERE done`)
	}
}

var cache []string

func refreshCache(db *sql.DB) {
	t := time.NewTicker(30 * time.Second) // inventory: per-replica
	defer t.Stop()
	for range t.C {
		rows, err := db.Query(`SELECT name FROM plans`)
		if err != nil {
			continue
		}
		var names []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			names = append(names, n)
		}
		rows.Close()
		cache = names
	}
}

func digest() {
	for { // inventory: finding LE1002
		smtp.SendMail("mail:25", nil, "noreply@example.com", []string{"all@example.com"}, []byte("digest"))
		time.Sleep(24 * time.Hour)
	}
}

// A statement handed in by the caller: an unknown write, silent by default
// and listed with the reason.
func opaque(ctx context.Context, db *sql.DB, q string) {
	for range time.Tick(time.Hour) { // inventory: per-replica
		db.ExecContext(ctx, q)
	}
}

// ring finds the owner of a key.
type ring interface{ Owner(key string) string }

type partitioner struct {
	db   *sql.DB
	ring ring
	host string
}

func newPartitioner(db *sql.DB, r ring) *partitioner {
	h, _ := os.Hostname()
	return &partitioner{db: db, ring: r, host: h}
}

func (p *partitioner) partitioned(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) { // inventory: coordinated
		for _, t := range tenants {
			if p.ring.Owner(t) != p.host {
				continue
			}
			p.db.ExecContext(ctx, "INSERT INTO usage (tenant) VALUES ($1)", t)
		}
	}
}

func (p *partitioner) unpartitioned(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) { // inventory: finding LE1001
		for _, t := range tenants {
			if p.ring.Owner(t) != t {
				continue
			}
			p.db.ExecContext(ctx, "INSERT INTO usage (tenant) VALUES ($1)", t)
		}
	}
}
