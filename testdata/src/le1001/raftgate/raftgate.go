// Package raftgate: ticker loops gated by raft leadership on every pass
// (silent), and their twins whose gate does not hold (reported).
package raftgate

import (
	"context"
	"database/sql"
	"log"
	"time"

	hraft "github.com/hashicorp/raft"
	eraft "go.etcd.io/raft/v3"

	"le1001/raftgate/topo"
)

type collector struct {
	db   *sql.DB
	topo *topo.Topology
}

func (c *collector) send(ctx context.Context) {
	c.db.ExecContext(ctx, `INSERT INTO reports (taken_at) VALUES (now())`)
}

// isLeader hands the other package's answer on: a second wrapper.
func (c *collector) isLeader() bool {
	if c.topo == nil {
		return false
	}
	return c.topo.IsLeader()
}

// Negative: the leader check of another package, through a wrapper of
// this one, gates every tick.
func (c *collector) WrapperEachTick(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	go func() {
		defer ticker.Stop()
		for range ticker.C {
			if c.isLeader() {
				c.send(ctx)
			} else {
				log.Printf("not the leader, skipping")
			}
		}
	}()
}

// Positive twin: the wrapper's answer is dropped.
func (c *collector) WrapperIgnored(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval) // want `time.NewTicker runs loop body on every replica: it inserts into table reports`
	go func() {
		defer ticker.Stop()
		for range ticker.C {
			c.isLeader()
			c.send(ctx)
		}
	}()
}

// Positive twin: the same shape of wrapper compares with the follower
// constant.
func (c *collector) FollowerEachTick(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval) // want `time.NewTicker runs loop body on every replica: it inserts into table reports`
	go func() {
		defer ticker.Stop()
		for range ticker.C {
			if c.topo.IsFollower() {
				c.send(ctx)
			}
		}
	}()
}

// Positive twin: the state is handed on and logged, never compared.
func (c *collector) StateLogged(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval) // want `time.NewTicker runs loop body on every replica: it inserts into table reports`
	go func() {
		defer ticker.Stop()
		for range ticker.C {
			log.Printf("raft state %s", c.topo.State())
			c.send(ctx)
		}
	}()
}

// Positive: leadership checked once before the loop is no gate on each
// pass (a deposed leader keeps ticking).
func CheckedOnce(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	if r.State() != hraft.Leader {
		return
	}
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Negative: hashicorp/raft's state compared with Leader on every tick.
func DirectEachTick(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if r.State() != hraft.Leader {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive twin: compared with Follower instead.
func DirectFollower(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		if r.State() == hraft.Follower {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive twin: the state is only logged.
func DirectLogged(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		log.Printf("raft state %v", r.State())
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive twin: the comparison is made and dropped.
func DirectDropped(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		leads := r.State() == hraft.Leader
		log.Printf("leader: %v", leads)
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Negative: a one-line wrapper of another package returning the
// comparison gates every tick.
func LeadsEachTick(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if !topo.Leads(r) {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive twin: its answer is assigned away.
func LeadsIgnored(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		_ = topo.Leads(r)
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Negative: etcd raft's status compared with StateLeader on every tick.
func EtcdEachTick(ctx context.Context, n eraft.Node, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if n.Status().RaftState == eraft.StateLeader {
			db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
		}
	}
}

// Positive twin: compared with StateFollower.
func EtcdFollower(ctx context.Context, n eraft.Node, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		if n.Status().RaftState != eraft.StateFollower {
			db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
		}
	}
}

// Negative: hashicorp/raft's VerifyLeader on every tick.
func VerifyEachTick(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if err := r.VerifyLeader().Error(); err != nil {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive twin: the node's state is asked instead and not compared.
func VerifyMissing(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		if st := r.State(); st.String() == "" {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}

// Positive: Apply tests the state inside the library; the caller drops
// its answer and writes on every replica.
func ApplyIgnored(ctx context.Context, r *hraft.Raft, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `time.Tick runs .* on every replica`
		r.Apply([]byte("tick"))
		db.ExecContext(ctx, `INSERT INTO rollups (day) VALUES (current_date)`)
	}
}
