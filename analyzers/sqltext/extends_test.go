package sqltext

import "testing"

func TestExtendsExpiry(t *testing.T) {
	cases := []struct {
		q    string
		want bool
	}{
		{`UPDATE locks SET lease_expires_at = now() + $1::interval, updated_at = now() WHERE lock_id = $2 AND locked_by = $3 AND locked = true RETURNING lease_expires_at`, true},
		{`update queue set timeout = ? where queue = ? and id = ?`, true},
		{`UPDATE jobs SET visible_at = $1 WHERE id = $2`, true},
		{`UPDATE leases SET expires_at = NULL, holder = NULL WHERE name = $1 AND holder = $2`, false},
		{`UPDATE leases SET expires_at = now() WHERE name = $1 AND holder = $2`, false},
		{`UPDATE leases SET expires_at = $1, holder = '' WHERE name = $2`, false},
		{`UPDATE workers SET heartbeat_at = now() WHERE id = $1`, false},
		{`UPDATE feeds SET checked_at = now() WHERE id = $1`, false},
		{`UPDATE t SET locked_until = now() + make_interval(secs => $1), n = 2 WHERE id = $2`, true},
		{`INSERT INTO leases (name, expires_at) VALUES ($1, $2)`, false},
		{`UPDATE a SET expires_at = $1 WHERE id = $2; DELETE FROM b`, false},
	}
	for _, c := range cases {
		if got := ExtendsExpiry(c.q); got != c.want {
			t.Errorf("ExtendsExpiry(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestHolderColumn(t *testing.T) {
	for q, want := range map[string]string{
		`UPDATE activities SET locked_until = ? WHERE activity_id = ? AND worker = ?`:              "worker",
		`UPDATE leases SET expires_at = now() + $1 WHERE name = $2 AND holder = $3 RETURNING name`: "holder",
		`UPDATE t SET expires_at = $1 WHERE t.owner_id = $2`:                                       "owner_id",
		`UPDATE activities SET locked_until = ? WHERE id = ?`:                                      "",
		`UPDATE instances SET locked_until = ? WHERE instance_id = ? AND execution_id = ?`:         "",
		`UPDATE t SET locked_until = ? WHERE id = ? RETURNING worker = ?`:                          "",
		`UPDATE t SET worker = ? WHERE id = ?`:                                                     "",
		`SELECT * FROM t WHERE worker = ?`:                                                         "",
		`UPDATE t SET locked_until = ? WHERE id = ? AND other_worker = ?`:                          "",
	} {
		if got := HolderColumn(q); got != want {
			t.Errorf("HolderColumn(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestSetsHolderOnlyExpiry(t *testing.T) {
	for q, want := range map[string]string{
		`UPDATE activities SET locked_until = ?, worker = ? WHERE id = ?`:         "worker",
		`UPDATE jobs SET locked_by = $1, lease_expires_at = $2 WHERE id = $3`:     "locked_by",
		`UPDATE jobs SET locked_by = NULL, lease_expires_at = NULL WHERE id = $1`: "",
		`UPDATE jobs SET locked_until = ? WHERE id = ? AND worker = ?`:            "",
	} {
		if got := SetsHolder(q); got != want {
			t.Errorf("SetsHolder(%q) = %q, want %q", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		`UPDATE jobs SET locked_until = ? WHERE id = ?`:                          true,
		`UPDATE jobs SET locked_until = ?, updated_at = now() WHERE id = ?`:      true,
		`UPDATE jobs SET locked_until = ?, attempts = attempts + 1 WHERE id = ?`: false,
		`UPDATE jobs SET locked_until = ?, worker = ? WHERE id = ?`:              false,
		`UPDATE jobs SET updated_at = now() WHERE id = ?`:                        false,
	} {
		if got := OnlyExpiry(q); got != want {
			t.Errorf("OnlyExpiry(%q) = %v, want %v", q, got, want)
		}
	}
}
