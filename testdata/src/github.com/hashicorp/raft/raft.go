// Package raft is a test stub of github.com/hashicorp/raft's leadership API.
package raft

// RaftState is a node's role.
type RaftState uint32

// The roles.
const (
	Follower RaftState = iota
	Candidate
	Leader
	Shutdown
)

// Future is a pending answer.
type Future interface{ Error() error }

// Raft is a node.
type Raft struct{}

// State returns the node's current role.
func (r *Raft) State() RaftState { return Follower }

// VerifyLeader asks the peers whether this node still leads.
func (r *Raft) VerifyLeader() Future { return nil }

// String names the role.
func (s RaftState) String() string { return "" }
