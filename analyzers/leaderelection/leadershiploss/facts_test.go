package leadershiploss

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"
)

// Facts cross package boundaries through gob under go vet -vettool.
func TestFactsGob(t *testing.T) {
	for _, f := range []any{&Forwards{Start: 6, Stop: 7, StopsWork: true, Via: "k8s.io/client-go/tools/leaderelection.LeaderCallbacks"}, &Renews{Via: "(redsync.Mutex).Extend"}} {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(f); err != nil {
			t.Fatalf("encode %T: %v", f, err)
		}
		switch f := f.(type) {
		case *Forwards:
			var g Forwards
			if err := gob.NewDecoder(&buf).Decode(&g); err != nil || g != *f {
				t.Fatalf("round trip %v -> %v (%v)", f, g, err)
			}
		case *Renews:
			var g Renews
			if err := gob.NewDecoder(&buf).Decode(&g); err != nil || g != *f {
				t.Fatalf("round trip %v -> %v (%v)", f, g, err)
			}
		}
	}
}

// The gated-work facts hold slices: they must survive gob as well.
func TestGateFactsGob(t *testing.T) {
	for _, f := range []any{
		&ElectedFields{Fields: []ElectedField{{Key: "example.com/config.Server.Elected", Holder: "example.com/provider", Via: "(manager.Manager).Elected()", At: "example.com/provider/provider.go:12"}}},
		&ManagerErr{Holder: "example.com/provider", At: "example.com/provider/provider.go:30"},
		&LossSurvives{Holders: []string{"example.com/provider"}, At: []string{"example.com/run/run.go:9"}},
		&Gates{Sites: []Gate{{Field: "example.com/config.Server.Elected", Work: "r.apply", Ctx: "ctx", At: "example.com/runner/runner.go:40"}}},
		&GatesReported{At: []string{"example.com/runner/runner.go:40"}},
		&BlindLoop{Ctx: -1, At: "example.com/retry/retry.go:15"},
		&FlagLease{Lock: "example.com/lockclient.Lease", Signals: []string{"IsLocked", "Lost"}, Recv: true, At: "lockclient.go:40", Flag: "held"},
	} {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(f); err != nil {
			t.Fatalf("encode %T: %v", f, err)
		}
		g := reflect.New(reflect.TypeOf(f).Elem()).Interface()
		if err := gob.NewDecoder(&buf).Decode(g); err != nil || !reflect.DeepEqual(f, g) {
			t.Fatalf("round trip %v -> %v (%v)", f, g, err)
		}
	}
}
