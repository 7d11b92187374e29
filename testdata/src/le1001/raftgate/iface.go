package raftgate

import (
	"context"
	"database/sql"
	"time"

	hraft "github.com/hashicorp/raft"
)

// leadership is asked through an interface whose one implementation is
// the raft node's own answer.
type leadership interface{ Leads() bool }

type raftLeadership struct{ r *hraft.Raft }

func (l raftLeadership) Leads() bool { return l.r.State() == hraft.Leader }

// Negative: every implementation of the interface answers from raft.
func InterfaceEachTick(ctx context.Context, l leadership, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if l.Leads() {
			db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
		}
	}
}

// primary has a second implementation that answers from a setting, which
// elects nobody.
type primary interface{ Primary() bool }

type raftPrimary struct{ r *hraft.Raft }

func (p raftPrimary) Primary() bool { return p.r.State() == hraft.Leader }

type configuredPrimary struct{ on bool }

func (p configuredPrimary) Primary() bool { return p.on }

// Positive twin: one implementation is no leader check.
func InterfaceMixed(ctx context.Context, p primary, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		if p.Primary() {
			db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
		}
	}
}

var (
	_ leadership = raftLeadership{}
	_ primary    = raftPrimary{}
	_ primary    = configuredPrimary{}
)
