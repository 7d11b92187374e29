package sqltext

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		q    string
		want Statement
	}{
		{`INSERT INTO charges (user_id, amount) SELECT id, fee FROM accounts WHERE due`,
			Statement{Kind: Insert, Tables: []string{"charges"}, Writes: true}},
		{`insert into sessions(id) values ($1) ON CONFLICT (id) DO NOTHING`,
			Statement{Kind: Insert, Tables: []string{"sessions"}, Writes: true, Idempotent: true}},
		{`DELETE FROM sessions WHERE expires_at < now()`,
			Statement{Kind: Delete, Tables: []string{"sessions"}, Writes: true, Idempotent: true, ExpiryColumn: true}},
		{`DELETE FROM users WHERE id = $1`,
			Statement{Kind: Delete, Tables: []string{"users"}, Writes: true}},
		{`UPDATE counters SET n = n + 1 WHERE name = 'x'`,
			Statement{Kind: Update, Tables: []string{"counters"}, Writes: true, Increment: true}},
		{`UPDATE jobs SET next_run = $1 WHERE id = $2 AND next_run = $3`,
			Statement{Kind: Update, Tables: []string{"jobs"}, Writes: true, Claim: true}},
		{`SELECT id FROM jobs WHERE state = 'ready' ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED`,
			Statement{Kind: Select, Tables: []string{"jobs"}, Writes: true, Claim: true}},
		{`SELECT pg_try_advisory_xact_lock(42)`,
			Statement{Kind: Select, AdvisoryLock: "pg_try_advisory_xact_lock"}},
		{`SELECT email FROM users WHERE digest = true`,
			Statement{Kind: Select, Tables: []string{"users"}}},
		{`UPDATE public."Feeds" SET checked_at = now() -- comment with delete from x`,
			Statement{Kind: Update, Tables: []string{"public.feeds"}, Writes: true}},
		{`INSERT INTO meta (k, last) VALUES ($1, now()) ON CONFLICT (k) DO UPDATE SET last = now() WHERE meta.last < now() - $2::interval`,
			Statement{Kind: Insert, Tables: []string{"meta"}, Writes: true, Idempotent: true, Claim: true}},
		{`INSERT INTO meta (k, last) VALUES ($1, now()) ON CONFLICT (k) DO UPDATE SET last = now()`,
			Statement{Kind: Insert, Tables: []string{"meta"}, Writes: true, Idempotent: true}},
		{`UPDATE jobs SET state = 'running' WHERE id = $1 AND state = 'pending'`,
			Statement{Kind: Update, Tables: []string{"jobs"}, Writes: true, Claim: true}},
		{`UPDATE leases SET holder = $1 WHERE name = 'x' AND holder IS NULL`,
			Statement{Kind: Update, Tables: []string{"leases"}, Writes: true, Claim: true, OwnerColumn: true, ExpiryColumn: true}},
		{`UPDATE reports SET generated = true, n = 1 WHERE month = $1`,
			Statement{Kind: Update, Tables: []string{"reports"}, Writes: true}},
		{`UPDATE q SET visible_at = ?, deliveries = deliveries + 1 WHERE id = (SELECT id FROM q WHERE topic = ? AND ? >= visible_at ORDER BY created LIMIT 1) RETURNING id, body`,
			Statement{Kind: Update, Tables: []string{"q"}, Writes: true, Claim: true}},
		{`UPDATE q SET visible_at = ?, deliveries = deliveries + 1 WHERE id = (SELECT id FROM q ORDER BY created LIMIT 1) RETURNING id, body`,
			Statement{Kind: Update, Tables: []string{"q"}, Writes: true, Increment: true}},
		{`UPDATE q SET visible_at = $1 WHERE id = (SELECT id FROM q WHERE topic = $2 AND $3 >= now() LIMIT 1)`,
			Statement{Kind: Update, Tables: []string{"q"}, Writes: true}},
		{`INSERT INTO locks (name, owner) VALUES ($1, $2)`,
			Statement{Kind: Insert, Tables: []string{"locks"}, Writes: true, OwnerColumn: true}},
	}
	for _, c := range cases {
		if got := Classify(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Classify(%q)\n got %+v\nwant %+v", c.q, got, c.want)
		}
	}
}
