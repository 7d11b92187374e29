package lockfacts

import "testing"

func TestParseSQL(t *testing.T) {
	cases := []struct {
		q    string
		want Statement
	}{
		{`INSERT INTO job_locks (name, owner) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			Statement{Verb: "insert", Table: "job_locks", LockTable: true, OwnerSet: true, OnConflictNothing: true}},
		{`insert into "shedlock" (name, lock_until, locked_at, locked_by) values ($1, $2, $3, $4)`,
			Statement{Verb: "insert", Table: "shedlock", LockTable: true, OwnerSet: true, Expiry: true}},
		{`UPDATE leader_election SET holder = $1 WHERE id = 1 AND holder IS NULL`,
			Statement{Verb: "update", Table: "leader_election", LockTable: true, OwnerSet: true, OwnerPred: true}},
		{`UPDATE job_lock SET locked_by = NULL WHERE job_name = $1`,
			Statement{Verb: "update", Table: "job_lock", LockTable: true, OwnerCleared: true, NamePred: true}},
		{`DELETE FROM distributed_locks WHERE name = $1`,
			Statement{Verb: "delete", Table: "distributed_locks", LockTable: true, NamePred: true}},
		{`DELETE FROM distributed_locks WHERE name = $1 AND owner = $2`,
			Statement{Verb: "delete", Table: "distributed_locks", LockTable: true, NamePred: true, OwnerPred: true}},
		{`DELETE FROM blocks WHERE name = $1`,
			Statement{Verb: "delete", Table: "blocks", NamePred: true}},
		{`SELECT pg_try_advisory_lock($1)`,
			Statement{Verb: "select", Advisory: "pg_try_advisory_lock"}},
		{`select pg_advisory_unlock(42)`,
			Statement{Verb: "select", Advisory: "pg_advisory_unlock"}},
	}
	for _, c := range cases {
		got := *ParseSQL(c.q)
		if got != c.want {
			t.Errorf("ParseSQL(%q)\n got %+v\nwant %+v", c.q, got, c.want)
		}
	}
	if s := ParseSQL(`SELECT pg_try_advisory_xact_lock(1)`); s.SessionAdvisoryLock() || s.AdvisoryUnlock() {
		t.Errorf("xact lock taken for a session lock: %+v", s)
	}
	if s := ParseSQL(`SELECT pg_advisory_lock(1)`); !s.SessionAdvisoryLock() {
		t.Errorf("pg_advisory_lock not a session lock")
	}
}

func TestLockTableName(t *testing.T) {
	yes := []string{"locks", "job_locks", "shedlock", "leader_election", "leases", "public.distributed_lock", "mutexes", "cron_leader"}
	no := []string{"blocks", "clock_skew", "releases", "leaderboard", "users", "leader_history", "lock_audit_log"}
	for _, n := range yes {
		if !LockTableName(n) {
			t.Errorf("LockTableName(%q) = false", n)
		}
	}
	for _, n := range no {
		if LockTableName(n) {
			t.Errorf("LockTableName(%q) = true", n)
		}
	}
}
