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
