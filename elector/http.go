package elector

import (
	"encoding/json"
	"net/http"
	"time"
)

// Healthy reports whether Run is running and its loop made progress recently
// (within three lease durations, longer than any wait the loop makes while
// the work behaves).
func (c *Candidate) Healthy() bool {
	if !c.running.Load() {
		return false
	}
	c.mu.Lock()
	last := c.lastBeat
	c.mu.Unlock()
	return c.clock.Now().Sub(last) < 3*c.timing.LeaseDuration
}

// HealthHandler answers 200 while Run is alive (see Healthy), else 503. Use
// it as a liveness probe: a candidate that stopped competing is a failure.
func (c *Candidate) HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.Healthy() {
			http.Error(w, "elector: Run loop not running", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
}

// LeaderStatus is the JSON body of LeaderHandler.
type LeaderStatus struct {
	Leader   bool      `json:"leader"`
	Token    uint64    `json:"token,omitempty"`
	Holder   string    `json:"holder"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// LeaderHandler answers 200 with LeaderStatus while this candidate leads, and
// 503 (also with LeaderStatus) otherwise, so it can serve as a readiness probe
// that routes leader-only traffic. Holder is this candidate's identity.
func (c *Candidate) LeaderHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := LeaderStatus{Holder: c.identity}
		code := http.StatusServiceUnavailable
		if l, ok := c.Lease(); ok {
			st = LeaderStatus{Leader: true, Token: l.Token(), Holder: l.Holder(), Deadline: l.Deadline()}
			code = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(st)
	})
}
