package prommetrics_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/prommetrics"
)

func TestMetricsFollowTheCandidate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		tm := elector.DefaultTiming()
		newCandidate := func(id string) *elector.Candidate {
			c, err := elector.New(s, "lease", elector.WithIdentity(id), elector.WithTiming(tm))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		reg := prometheus.NewRegistry()
		c := newCandidate("a")
		if err := prommetrics.Register(reg, c); err != nil {
			t.Fatal(err)
		}
		if err := prommetrics.Register(reg, newCandidate("b")); err == nil {
			t.Error("a second candidate for the same lease registered in the same registry")
		}
		// Someone else holds the lease first: a is a standby.
		other, _ := s.Acquire(t.Context(), "lease", "z", 4*time.Second)
		started := make(chan elector.Lease, 4)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
				started <- l
				<-ctx.Done()
				return nil
			})
		}()
		synctest.Wait()
		if got := metric(t, reg, "elector_is_leader"); got != 0 {
			t.Errorf("is_leader of a standby = %v", got)
		}
		l := <-started
		if l.Token() <= other.Token {
			t.Fatalf("token %d", l.Token())
		}
		time.Sleep(6 * time.Second) // one renew
		for name, want := range map[string]float64{
			"elector_is_leader":             1,
			"elector_token":                 float64(l.Token()),
			"elector_transitions_total":     1,
			"elector_renew_latency_seconds": 1, // one renew observed
			"elector_events_dropped_total":  0,
		} {
			if got := metric(t, reg, name); got != want {
				t.Errorf("%s = %v; want %v", name, got, want)
			}
		}
		got, want := metric(t, reg, "elector_seconds_to_deadline"), time.Until(l.Deadline()).Seconds()
		if got != want || got <= 0 || got > tm.SafeWindow().Seconds() {
			t.Errorf("seconds_to_deadline %v; want %v", got, want)
		}
		if err := c.Resign(context.Background()); err != nil {
			t.Fatalf("Resign: %v", err)
		}
		synctest.Wait()
		if got := metric(t, reg, "elector_is_leader"); got != 0 {
			t.Errorf("is_leader after resign = %v", got)
		}
		if got := metric(t, reg, "elector_transitions_total"); got != 2 {
			t.Errorf("transitions after resign = %v; want 2", got)
		}
		if got := kind(t, reg, "released"); got != 1 {
			t.Errorf("events_total{kind=released} = %v; want 1", got)
		}
		cancel()
		<-done
	})
}

// metric returns the value of the single series of a gauge, counter or the
// sample count of a histogram named name in reg.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if got := m.GetLabel(); len(got) != 1 || got[0].GetName() != "lease" || got[0].GetValue() != "lease" {
			t.Errorf("%s labels %v; want lease=\"lease\"", name, got)
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// kind returns elector_events_total for one kind.
func kind(t *testing.T, reg *prometheus.Registry, k string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "elector_events_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "kind" && lp.GetValue() == k {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
