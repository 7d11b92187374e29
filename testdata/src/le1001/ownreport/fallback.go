package ownreport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// fleetMember is named by its operator, or, left unnamed, by an ID it
// mints at start: either way the name is its own.
type fleetMember struct {
	name string
	api  string
}

type memberSync struct {
	Member string `json:"member"`
	Uptime int64  `json:"uptime"`
}

func newFleetMember(name, api string) *fleetMember {
	if name == "" {
		name = uuid.NewString()
	}
	return &fleetMember{name: name, api: api}
}

// Negative: the sync names the member by its configured-or-minted name.
func (m *fleetMember) syncLoop() {
	for range time.Tick(5 * time.Second) {
		payload, _ := json.Marshal(memberSync{Member: m.name, Uptime: 1})
		_, _ = http.Post(m.api+"/sync", "application/json", bytes.NewReader(payload))
	}
}

// defaultedMember falls back to a constant name: every unnamed member
// has the same one.
type defaultedMember struct {
	name string
	api  string
}

func newDefaultedMember(name, api string) *defaultedMember {
	if name == "" {
		name = "member"
	}
	return &defaultedMember{name: name, api: api}
}

// Positive twin of syncLoop: the fallback is a constant.
func (m *defaultedMember) syncLoop() {
	for range time.Tick(5 * time.Second) { // want `time.Tick runs loop body on every replica every 5s: it sends; guarded by nothing`
		payload, _ := json.Marshal(memberSync{Member: m.name, Uptime: 1})
		_, _ = http.Post(m.api+"/sync", "application/json", bytes.NewReader(payload))
	}
}

// switchedMember mints a name only when asked to: members run without
// the switch share the configured one.
type switchedMember struct {
	name string
	api  string
}

func newSwitchedMember(name, api string, mint bool) *switchedMember {
	if mint {
		name = uuid.NewString()
	}
	return &switchedMember{name: name, api: api}
}

// Positive twin of syncLoop: the minted name is not a fallback for an
// unset one.
func (m *switchedMember) syncLoop() {
	for range time.Tick(5 * time.Second) { // want `time.Tick runs loop body on every replica every 5s: it sends; guarded by nothing`
		payload, _ := json.Marshal(memberSync{Member: m.name, Uptime: 1})
		_, _ = http.Post(m.api+"/sync", "application/json", bytes.NewReader(payload))
	}
}
