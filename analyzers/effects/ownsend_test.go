package effects

import "testing"

// TestHTTPSendsOnlyEffects covers the effect test of the Send fact. Its
// "at least one send" part is not reachable from a fixture: a call to an
// effect-free function is never among a flush's send calls, so the fact
// would only be exported in vain. The unit test keeps the part honest.
func TestHTTPSendsOnlyEffects(t *testing.T) {
	for _, tc := range []struct {
		name string
		list []Effect
		want bool
	}{
		{"no effect", nil, false},
		{"an http send", []Effect{{Kind: "send", API: "net/http.Client.Do"}}, true},
		{"a send to an HTTP resource", []Effect{{Kind: "send", API: "x.Post", Resource: "HTTP POST"}}, true},
		{"a send and an insert", []Effect{{Kind: "send", API: "net/http.Client.Do"}, {Kind: "insert", API: "database/sql.DB.ExecContext"}}, false},
		{"a send of another protocol", []Effect{{Kind: "send", API: "github.com/nats-io/nats.go.Conn.Publish"}}, false},
	} {
		if got := httpSendsOnlyEffects(tc.list); got != tc.want {
			t.Errorf("%s: httpSendsOnlyEffects = %v, want %v", tc.name, got, tc.want)
		}
	}
}
