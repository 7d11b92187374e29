// Package topo answers "does this replica lead the raft group" for the
// package raftgate, whose loops gate their work on it: the answer crosses
// the package boundary as a fact.
package topo

import (
	hraft "github.com/hashicorp/raft"
	"github.com/seaweedfs/raft"
)

// Topology holds one raft node of either library.
type Topology struct {
	Server raft.Server
	Hashi  *hraft.Raft
}

// IsLeader: the state compared with the leader constant decides the bool,
// with a fallback on the leader's name.
func (t *Topology) IsLeader() bool {
	if t.Server != nil {
		if t.Server.State() == raft.Leader {
			return true
		}
		if l := t.Server.Leader(); l != "" && l == t.Server.Name() {
			return true
		}
	} else if t.Hashi != nil {
		if t.Hashi.State() == hraft.Leader {
			return true
		}
	}
	return false
}

// IsFollower has IsLeader's shape, compared with the follower constant: a
// follower is exactly the replica that must not run leader work.
func (t *Topology) IsFollower() bool {
	if t.Server != nil && t.Server.State() == raft.Follower {
		return true
	}
	return false
}

// Leads returns the comparison itself.
func Leads(r *hraft.Raft) bool {
	return r.State() == hraft.Leader
}

// State hands the state on without comparing it.
func (t *Topology) State() string {
	return t.Server.State()
}
