package main

import (
	"encoding/json"
	"testing"
)

// TestInventoryWrites checks the Writes column of a first-contact report:
// a finding whose effects name no resource shows the effects that can
// accumulate, so its evidence is in the table.
func TestInventoryWrites(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{`{"resources":["table jobs"],"effects":[{"kind":"insert","api":"x"}]}`, "table jobs"},
		{`{"effects":[{"kind":"delete","idempotent":true,"api":"sql.Exec","via":"prune"},{"kind":"increment","api":"sql.Exec","via":"addSize"},{"kind":"increment","api":"sql.Exec","via":"addSize"},{"kind":"write","unknown":true,"api":"y"}]}`, "increment via addSize"},
		{`{"effects":[{"kind":"send","api":"http.Post"}]}`, "send via http.Post"},
		{`{"effects":[{"kind":"delete","idempotent":true,"api":"a"},{"kind":"write","unknown":true,"api":"b"}]}`, "delete, write"},
		{`{}`, ""},
	} {
		var e InvEntry
		if err := json.Unmarshal([]byte(tc.entry), &e); err != nil {
			t.Fatal(err)
		}
		if got := e.writes(); got != tc.want {
			t.Errorf("writes(%s) = %q, want %q", tc.entry, got, tc.want)
		}
	}
}
