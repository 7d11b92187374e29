package sqltext

import (
	"reflect"
	"testing"
)

func TestWhereArgs(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []int
		ok   bool
	}{
		{`UPDATE leases SET expires_at = now() + $1::interval WHERE lock_id = $2 AND locked_by = $3`, []int{2, 3}, true},
		{`UPDATE leases SET expires_at = ?, note = '?' WHERE lock_id = ? AND locked_by = ?`, []int{2, 3}, true},
		{`update m set visible_at = visible_at + $1 where id = $2 returning id, $3`, []int{2}, true},
		{`DELETE FROM sessions WHERE owner = $1`, []int{1}, true},
		{`UPDATE counters SET n = n + 1`, nil, false},
		{`UPDATE counters SET n = $1 WHERE name = 'x'`, nil, false},
		{`INSERT INTO instances (id) VALUES ($1)`, nil, false},
		{`UPDATE t SET a = ? WHERE b = $1`, nil, false},
	} {
		got, ok := WhereArgs(tc.q)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("WhereArgs(%q) = %v, %v; want %v, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}
