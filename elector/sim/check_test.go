package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// TestCheckCatches feeds the checker hand-made histories, each breaking one
// guarantee, so a checker that passes everything fails here.
func TestCheckCatches(t *testing.T) {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	g := func(tok uint64, holder string) elector.Term {
		return elector.Term{Name: "sim", Holder: holder, Token: tok}
	}
	good := func() *Report {
		return &Report{
			Start:  t0,
			Grants: []elector.Term{g(1, "p0"), g(2, "p1")},
			Terms: []Term{
				{Token: 1, Process: 0, Identity: "p0", Start: at(0), End: at(10)},
				{Token: 2, Process: 1, Identity: "p1", Start: at(10), End: at(20)},
			},
			Writes: []Write{{Token: 1, At: at(1), Accepted: true}, {Token: 2, At: at(11), Accepted: true}},
			Events: map[elector.EventKind]int{},
		}
	}
	if v := check(good()); len(v) != 0 {
		t.Fatalf("a valid history has violations: %v", v)
	}
	tests := []struct {
		name   string
		break_ func(r *Report)
		want   string
	}{
		{"overlap", func(r *Report) { r.Terms[0].End = at(10.5) }, "overlap by 500ms"},
		{"overlap covered by pause", func(r *Report) { r.Terms[0].End = at(10.5); r.Terms[0].Paused = time.Second }, ""},
		{"grant tokens go back", func(r *Report) { r.Grants[1].Token = 1 }, "grant 1 token 1 after token 1"},
		{"token held twice", func(r *Report) { r.Terms[1].Token = 1; r.Terms[1].Identity = "p0" }, "token 1 held twice"},
		{"term not granted", func(r *Report) { r.Terms[1].Identity = "p9" }, "was not granted to it"},
		{"terms out of token order", func(r *Report) { r.Terms[0].Token, r.Terms[1].Token = 2, 1 }, "started after term"},
		{"stale write accepted", func(r *Report) { r.Writes = append(r.Writes, Write{Token: 1, At: at(12), Accepted: true}) },
			"accepted token 1 after token 2"},
		{"identity conflict", func(r *Report) { r.Events[elector.IdentityConflict] = 1 }, "identity conflicts"},
		// Term 1 (0..10 s) lost at its deadline; the default timing renews
		// 5 s after the grant, then every 2.4 s at most.
		{"renews keep coming until the deadline", func(r *Report) {
			lostAt(r, at(9))
			r.Renews = []RenewCall{{Token: 1, Sent: at(5), Answered: at(5.1)}, {Token: 1, Sent: at(7), Answered: at(7.1)}}
		}, ""},
		{"renew attempts stop at a hung request", func(r *Report) {
			lostAt(r, at(9))
			r.Renews = []RenewCall{{Token: 1, Sent: at(5), Answered: at(9)}}
		}, "without an attempt after an attempt"},
		{"first renew late", func(r *Report) {
			lostAt(r, at(9))
			r.Renews = []RenewCall{{Token: 1, Sent: at(6), Answered: at(6.1)}, {Token: 1, Sent: at(8), Answered: at(8.1)}}
		}, "without an attempt after the first was due"},
		{"attempts counted from the last success", func(r *Report) {
			lostAt(r, at(8))
			r.Renews = []RenewCall{{Token: 1, Sent: at(1), Answered: at(1.1), OK: true}, {Token: 1, Sent: at(6), Answered: at(6.1)}}
		}, ""},
		{"a paused term is excused", func(r *Report) {
			lostAt(r, at(9))
			r.Terms[0].PausedSinceRequest = time.Second
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			tc.break_(r)
			v := check(r)
			if tc.want == "" {
				if len(v) != 0 {
					t.Fatalf("violations %v; want none", v)
				}
				return
			}
			if !strings.Contains(strings.Join(v, "\n"), tc.want) {
				t.Fatalf("violations %q; want one containing %q", v, tc.want)
			}
		})
	}
}

// lostAt makes term 1 of a good() history one lost at its deadline at d.
func lostAt(r *Report, d time.Time) {
	r.Config.Timing = elector.DefaultTiming()
	r.Terms[0].Requested = r.Terms[0].Start
	r.Terms[0].Cause, r.Terms[0].Cancelled = elector.ErrDeadlinePassed, d
}
