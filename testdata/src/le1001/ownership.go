package le1001

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"os"
	"time"
)

// Work partitioned by ownership: every replica runs the job, each acts
// only on the items a lookup (a hash ring, a placement table) assigns to
// the instance itself. The twins compare the lookup with something that is
// not the instance's identity, which assigns nothing.

// hashRing looks up the owner of a key.
type hashRing interface {
	Owner(key string) (string, error)
	Lookup(key string) string
	Holds(key, member string) bool
}

type groupEvaluator struct {
	db       *sql.DB
	ring     hashRing
	self     string
	assigned string // a host named in the configuration
}

func newGroupEvaluator(db *sql.DB, ring hashRing) *groupEvaluator {
	host, _ := os.Hostname()
	return &groupEvaluator{db: db, ring: ring, self: host}
}

func (e *groupEvaluator) groups(ctx context.Context) []string {
	var out []string
	rows, err := e.db.QueryContext(ctx, `SELECT name FROM rule_groups`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	for rows.Next() {
		var g string
		rows.Scan(&g)
		out = append(out, g)
	}
	return out
}

// Negative: a group is evaluated only by the instance the ring assigns it to.
func (e *groupEvaluator) evaluateOwned(ctx context.Context) {
	for range time.Tick(time.Minute) {
		for _, g := range e.groups(ctx) {
			owner, err := e.ring.Owner(g)
			if err != nil || owner != e.self {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO alerts (rule_group) VALUES ($1)`, g)
		}
	}
}

// Positive twin: the owner is compared with a constant, not with this
// instance: every replica evaluates the groups owned by "ruler-0".
func (e *groupEvaluator) evaluateConstantOwner(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table alerts; guarded by nothing`
		for _, g := range e.groups(ctx) {
			owner, err := e.ring.Owner(g)
			if err != nil || owner != "ruler-0" {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO alerts (rule_group) VALUES ($1)`, g)
		}
	}
}

// Positive twin: the owner is compared with the item itself.
func (e *groupEvaluator) evaluateSelfNamed(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table alerts; guarded by nothing`
		for _, g := range e.groups(ctx) {
			owner, err := e.ring.Owner(g)
			if err != nil || owner != g {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO alerts (rule_group) VALUES ($1)`, g)
		}
	}
}

// reminderRunner keeps a placement table: actor key -> the pod that hosts it.
type reminderRunner struct {
	placement map[string]string
	pod       string
	keys      []string
}

func newReminderRunner() *reminderRunner {
	return &reminderRunner{placement: map[string]string{}, pod: os.Getenv("POD_NAME")}
}

func (m *reminderRunner) fire(key string) {
	http.Post("http://actors/"+key+"/remind", "application/json", bytes.NewReader(nil))
}

// Negative: the work is held in the body of the test that the placement
// table puts the key on this pod.
func (m *reminderRunner) runLocal(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for range t.C {
		for _, key := range m.keys {
			if m.placement[key] == m.pod {
				m.fire(key)
			}
		}
	}
}

// Positive twin: the table is only tested for having some owner.
func (m *reminderRunner) runPlaced(ctx context.Context) {
	t := time.NewTicker(30 * time.Second) // want `time.NewTicker runs loop body on every replica every 30s: it sends \(via le1001.\(\*reminderRunner\).fire\); guarded by nothing`
	defer t.Stop()
	for range t.C {
		for _, key := range m.keys {
			if m.placement[key] != "" {
				m.fire(key)
			}
		}
	}
}

// lifecycler is the ring membership of the instance, out of sight.
type lifecycler interface {
	GetInstanceAddr() string
	GetZone() string
}

type shardSweeper struct {
	db     *sql.DB
	ring   hashRing
	member lifecycler
	nodeID string
}

func newShardSweeper(db *sql.DB, ring hashRing, l lifecycler) *shardSweeper {
	return &shardSweeper{db: db, ring: ring, member: l, nodeID: os.Getenv("NODE_NAME")}
}

// owns looks the key up and compares the owner with this instance.
func (s *shardSweeper) owns(key string) bool {
	return s.ring.Lookup(key) == s.member.GetInstanceAddr()
}

// ownsByZone compares the owner with the instance's zone, which many
// instances share.
func (s *shardSweeper) ownsByZone(key string) bool {
	return s.ring.Lookup(key) == s.member.GetZone()
}

// Negative: an ownership helper decides, and the loop skips what it does
// not own.
func (s *shardSweeper) compactOwned(ctx context.Context, tenants []string) {
	for range time.Tick(time.Hour) {
		for _, tenant := range tenants {
			owned := s.owns(tenant)
			if !owned {
				continue
			}
			s.db.ExecContext(ctx, `INSERT INTO compactions (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the helper compares the owner with the zone, not the
// instance.
func (s *shardSweeper) compactByZone(ctx context.Context, tenants []string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table compactions; guarded by nothing`
		for _, tenant := range tenants {
			if !s.ownsByZone(tenant) {
				continue
			}
			s.db.ExecContext(ctx, `INSERT INTO compactions (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Negative: a membership predicate over the key and the instance's node
// name.
func (s *shardSweeper) compactHeld(ctx context.Context, tenants []string) {
	for range time.Tick(time.Hour) {
		for _, tenant := range tenants {
			if !s.ring.Holds(tenant, s.nodeID) {
				continue
			}
			s.db.ExecContext(ctx, `INSERT INTO compactions (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the same predicate over a fixed member name.
func (s *shardSweeper) compactHeldByFixed(ctx context.Context, tenants []string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table compactions; guarded by nothing`
		for _, tenant := range tenants {
			if !s.ring.Holds(tenant, "compactor-0") {
				continue
			}
			s.db.ExecContext(ctx, `INSERT INTO compactions (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the ownership test comes after the write, so it gates
// nothing.
func (e *groupEvaluator) evaluateThenCheck(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table alerts; guarded by nothing`
		for _, g := range e.groups(ctx) {
			e.db.ExecContext(ctx, `INSERT INTO alerts (rule_group) VALUES ($1)`, g)
			owner, err := e.ring.Owner(g)
			if err != nil || owner != e.self {
				continue
			}
		}
	}
}

// Positive twin: the instance is compared with a configured host, not with
// the owner a lookup found for the item: one fixed instance does all the
// work, and nothing assigns the groups among the replicas.
func (e *groupEvaluator) evaluateOnAssigned(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table alerts; guarded by nothing`
		for _, g := range e.groups(ctx) {
			if e.assigned != e.self {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO alerts (rule_group) VALUES ($1)`, g)
		}
	}
}

// replicaSet is a ring lookup's answer: the instances that hold a key,
// the first one its owner.
type replicaSet struct {
	Instances []struct{ Addr string }
}

type replicatedRing interface {
	Get(hash uint32) (replicaSet, error)
}

type tenantEvaluator struct {
	db       *sql.DB
	ring     replicatedRing
	member   lifecycler
	fallback bool
}

func hashOf(key string) uint32 {
	var h uint32
	for i := 0; i < len(key); i++ {
		h = h*31 + uint32(key[i])
	}
	return h
}

// ownsTenant says yes only on the branch where the ring's first instance
// for the key is this instance.
func (e *tenantEvaluator) ownsTenant(tenant string) (bool, error) {
	rs, err := e.ring.Get(hashOf(tenant))
	if err != nil {
		return false, err
	}
	self := e.member.GetInstanceAddr()
	if len(rs.Instances) > 0 && rs.Instances[0].Addr == self {
		return true, nil
	}
	return false, nil
}

// ownsTenantOrFallback also says yes, on every instance, when the ring has
// no instance for the key.
func (e *tenantEvaluator) ownsTenantOrFallback(tenant string) (bool, error) {
	rs, err := e.ring.Get(hashOf(tenant))
	if err != nil {
		return false, err
	}
	if len(rs.Instances) > 0 && rs.Instances[0].Addr == e.member.GetInstanceAddr() {
		return true, nil
	}
	return e.fallback, nil
}

// Negative: the helper answers yes only on the owner's branch.
func (e *tenantEvaluator) evaluateOwned(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) {
		for _, tenant := range tenants {
			owned, err := e.ownsTenant(tenant)
			if err != nil || !owned {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the helper's other yes is not decided by ownership.
func (e *tenantEvaluator) evaluateWithFallback(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table evaluations; guarded by nothing`
		for _, tenant := range tenants {
			owned, err := e.ownsTenantOrFallback(tenant)
			if err != nil || !owned {
				continue
			}
			e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Negative: the owned tenants are collected first, then evaluated.
func (e *tenantEvaluator) evaluateCollected(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) {
		var mine []string
		for _, tenant := range tenants {
			owned, err := e.ownsTenant(tenant)
			if err != nil {
				continue
			}
			if owned {
				mine = append(mine, tenant)
			}
		}
		for _, tenant := range mine {
			e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the collection also takes tenants nobody checked.
func (e *tenantEvaluator) evaluateCollectedPlusExtra(ctx context.Context, tenants, extra []string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table evaluations; guarded by nothing`
		var mine []string
		for _, tenant := range tenants {
			if owned, _ := e.ownsTenant(tenant); owned {
				mine = append(mine, tenant)
			}
		}
		mine = append(mine, extra...)
		for _, tenant := range mine {
			e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) VALUES ($1)`, tenant)
		}
	}
}

// Positive twin: the owned tenants are collected, but the write ranges
// over all of them.
func (e *tenantEvaluator) evaluateCollectedUnused(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table evaluations; guarded by nothing`
		var mine []string
		for _, tenant := range tenants {
			if owned, _ := e.ownsTenant(tenant); owned {
				mine = append(mine, tenant)
			}
		}
		for _, tenant := range tenants {
			e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) VALUES ($1)`, tenant)
		}
		_ = mine
	}
}

// Positive twin: the collection takes the tenants this instance does not
// own.
func (e *tenantEvaluator) evaluateCollectedOthers(ctx context.Context, tenants []string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it inserts into table evaluations; guarded by nothing`
		var others []string
		for _, tenant := range tenants {
			if owned, _ := e.ownsTenant(tenant); !owned {
				others = append(others, tenant)
			}
		}
		e.db.ExecContext(ctx, `INSERT INTO evaluations (tenant) SELECT unnest($1::text[])`, others)
	}
}

// Positive twin: the owner is compared with the address of the server the
// job reports to, a peer's address, not this instance's.
func (s *shardSweeper) compactForServer(ctx context.Context, tenants []string, serverAddr string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table compactions; guarded by nothing`
		for _, tenant := range tenants {
			if s.ring.Lookup(tenant) != serverAddr {
				continue
			}
			s.db.ExecContext(ctx, `INSERT INTO compactions (tenant) VALUES ($1)`, tenant)
		}
	}
}
