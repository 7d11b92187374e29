package leadershiploss

import (
	"bytes"
	"encoding/gob"
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
