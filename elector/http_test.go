package elector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

func get(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code, rec.Body.String()
}

func TestHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memstore.New()
		var ev events
		c := newCandidate(t, s, "a", &ev)
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
		if err := c.Resign(context.Background()); err != nil {
			t.Fatalf("Resign: %v", err)
		}
		synctest.Wait()
		if code, _ := get(t, c.LeaderHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("leader handler after resign: %d", code)
		}
		stop()
		if code, _ := get(t, c.HealthHandler()); code != http.StatusServiceUnavailable {
			t.Errorf("health after Run returned: %d; want 503", code)
		}
	})
}
