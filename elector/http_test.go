package elector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/prometheus/client_golang/prometheus"
)

func get(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code, rec.Body.String()
}

func TestHandlersAndMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		reg := prometheus.NewRegistry()
		var ev events
		c := newCandidate(t, s, "a", &ev, elector.WithMetrics(reg))
		if _, err := elector.New(s, "lease", elector.WithMetrics(reg)); err == nil {
			t.Error("a second candidate for the same lease registered in the same registry")
		}
		if code, _ := get(t, c.HealthHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("health before Run: %d; want 503", code)
		}
		if code, body := get(t, c.LeaderHandler()); code != http.StatusServiceUnavailable || !strings.Contains(body, `"leader":false`) {
			t.Errorf("leader before Run: %d %s", code, body)
		}
		// Someone else holds the lease first: a is a standby.
		other, _ := s.Acquire(t.Context(), "lease", "b", 4*time.Second)
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		synctest.Wait()
		if code, _ := get(t, c.HealthHandler()); code != http.StatusOK {
			t.Errorf("health of a standby: %d; want 200", code)
		}
		if code, _ := get(t, c.LeaderHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("leader handler of a standby: %d; want 503", code)
		}
		if got := metric(t, reg, "elector_is_leader"); got != 0 {
			t.Errorf("is_leader of a standby = %v", got)
		}
		l := <-rec.start
		if l.Token() <= other.Token {
			t.Fatalf("token %d", l.Token())
		}
		code, body := get(t, c.LeaderHandler())
		var st elector.LeaderStatus
		if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusOK {
			t.Fatalf("leader handler: %d %s %v", code, body, err)
		}
		if !st.Leader || st.Token != l.Token() || st.Holder != "a" || !st.Deadline.Equal(l.Deadline()) {
			t.Errorf("leader status %+v; lease token %d deadline %v", st, l.Token(), l.Deadline())
		}
		time.Sleep(6 * time.Second) // one renew
		for name, want := range map[string]float64{
			"elector_is_leader":             1,
			"elector_token":                 float64(l.Token()),
			"elector_transitions_total":     1,
			"elector_renew_latency_seconds": 1, // one renew observed
		} {
			if got := metric(t, reg, name); got != want {
				t.Errorf("%s = %v; want %v", name, got, want)
			}
		}
		got, want := metric(t, reg, "elector_seconds_to_deadline"), time.Until(l.Deadline()).Seconds()
		if got != want || got <= 0 || got > testTiming.SafeWindow().Seconds() {
			t.Errorf("seconds_to_deadline %v; want %v", got, want)
		}
		c.Resign()
		synctest.Wait()
		if code, _ := get(t, c.LeaderHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("leader handler after resign: %d", code)
		}
		if got := metric(t, reg, "elector_is_leader"); got != 0 {
			t.Errorf("is_leader after resign = %v", got)
		}
		stop()
		if code, _ := get(t, c.HealthHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("health after Run returned: %d; want 503", code)
		}
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

func TestObserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var mu sync.Mutex
		var seen []elector.Record
		snapshot := func() []elector.Record {
			mu.Lock()
			defer mu.Unlock()
			return append([]elector.Record(nil), seen...)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() {
			done <- elector.Observe(ctx, s, "lease", time.Second, func(r elector.Record) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, r)
			})
		}()
		synctest.Wait()
		a, _ := s.Acquire(ctx, "lease", "a", 3*time.Second)
		synctest.Wait() // the watch wakes the observer at once
		got := snapshot()
		if len(got) != 2 || got[1].Term != a || !got[1].Held {
			t.Fatalf("seen %+v after acquire", got)
		}
		time.Sleep(5 * time.Second) // expiry is noticed by polling
		got = snapshot()
		if len(got) != 3 || got[2].Held {
			t.Fatalf("seen %+v after expiry", got)
		}
		rec, err := s.Read(ctx, "lease")
		if err != nil || rec.Term != a || rec.Held {
			t.Errorf("Read = %+v, %v", rec, err)
		}
		cancel()
		if err := <-done; err == nil {
			t.Error("Observe returned nil after its context ended")
		}
	})
}
