// Package ownreport: agents that report their own state to a control
// plane on a timer, keyed by the agent's own identity (a heartbeat, a
// status sync), and their twins whose request names no replica: a
// constant payload, a shared group ID, a name every replica sets alike.
package ownreport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
)

type statusReport struct {
	Agent   string            `json:"agent"`
	Group   string            `json:"group"`
	Healthy bool              `json:"healthy"`
	Counts  map[string]int    `json:"counts"`
	Labels  map[string]string `json:"labels"`
}

type agent struct {
	mu      sync.Mutex
	agentID string // minted at start: each running copy has its own
	groupID string // the group every copy belongs to
	label   string // the same constant on every copy
	counts  map[string]int
	api     string
}

func newAgent(api, group string) *agent {
	return &agent{agentID: uuid.NewString(), groupID: group, label: "edge", api: api, counts: map[string]int{}}
}

// Negative: the body names this agent by its minted ID.
func (a *agent) reportLoop() {
	t := time.NewTicker(10 * time.Second)
	for range t.C {
		a.report()
	}
}

func (a *agent) report() {
	a.mu.Lock()
	rep := statusReport{Agent: a.agentID, Group: a.groupID, Healthy: true, Counts: a.counts}
	a.mu.Unlock()
	payload, _ := json.Marshal(rep)
	req, _ := http.NewRequest("POST", a.api+"/v1/status", bytes.NewReader(payload))
	_, _ = http.DefaultClient.Do(req)
}

// Positive twin of reportLoop: the same send, its body carrying only the
// shared group ID: every replica posts the same report.
func (a *agent) groupLoop() {
	t := time.NewTicker(10 * time.Second) // want `time.NewTicker runs loop body on every replica every 10s: it sends HTTP POST \(via ownreport.\(\*agent\).groupReport\); guarded by nothing`
	for range t.C {
		a.groupReport()
	}
}

func (a *agent) groupReport() {
	rep := statusReport{Group: a.groupID, Healthy: true}
	payload, _ := json.Marshal(rep)
	req, _ := http.NewRequest("POST", a.api+"/v1/status", bytes.NewReader(payload))
	_, _ = http.DefaultClient.Do(req)
}

// Negative: the agent's ID is in the URL path; the body is a constant.
func (a *agent) pathLoop() {
	for range time.Tick(30 * time.Second) {
		req, _ := http.NewRequest(http.MethodPut, a.api+"/v1/agents/"+a.agentID+"/alive", bytes.NewReader([]byte(`{"ok":true}`)))
		_, _ = http.DefaultClient.Do(req)
	}
}

// Positive twin of pathLoop: the URL is built from a shared constant only.
func (a *agent) constPathLoop() {
	for range time.Tick(30 * time.Second) { // want `time.Tick runs loop body on every replica every 30s: it sends HTTP PUT; guarded by nothing`
		req, _ := http.NewRequest(http.MethodPut, a.api+"/v1/agents/alive", bytes.NewReader([]byte(`{"ok":true}`)))
		_, _ = http.DefaultClient.Do(req)
	}
}

// Positive twin: the field that names the agent in the body is a constant
// (label "edge" on every copy), not an identity.
func (a *agent) labelLoop() {
	for range time.Tick(30 * time.Second) { // want `time.Tick runs loop body on every replica every 30s: it sends; guarded by nothing`
		payload, _ := json.Marshal(statusReport{Agent: a.label, Healthy: true})
		_, _ = http.Post(a.api+"/v1/status", "application/json", bytes.NewReader(payload))
	}
}

// Negative: a map body keyed by the host name, through http.Post.
func (a *agent) hostLoop() {
	host, _ := os.Hostname()
	for range time.Tick(time.Minute) {
		payload, _ := json.Marshal(map[string]any{"host": host, "healthy": true})
		_, _ = http.Post(a.api+"/v1/hosts", "application/json", bytes.NewReader(payload))
	}
}

// Positive twin of hostLoop: the map body holds only constants.
func (a *agent) constMapLoop() {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends; guarded by nothing`
		payload, _ := json.Marshal(map[string]any{"host": "all", "healthy": true})
		_, _ = http.Post(a.api+"/v1/hosts", "application/json", bytes.NewReader(payload))
	}
}

// Negative: the body is built in a closure that captures the encoded
// report (a retrying request builder), the report naming the agent.
func (a *agent) retryLoop() {
	for range time.Tick(time.Minute) {
		a.retryReport()
	}
}

func (a *agent) retryReport() {
	var payload []byte
	var err error
	rep := statusReport{Agent: a.agentID}
	rep.Healthy = len(a.counts) > 0
	if payload, err = json.Marshal(rep); err != nil {
		return
	}
	build := func() (*http.Request, error) {
		return http.NewRequest("POST", a.api+"/v1/status", bytes.NewReader(payload))
	}
	for i := 0; i < 3; i++ {
		req, err := build()
		if err != nil {
			return
		}
		if _, err := http.DefaultClient.Do(req); err == nil {
			return
		}
	}
}
