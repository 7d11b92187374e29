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

type errorFuture struct{ err error }

func (f errorFuture) Error() error { return f.err }

// ErrNotLeader is Apply's answer on a follower.
var ErrNotLeader error

// Apply replicates a command from the leader; a follower answers
// ErrNotLeader. Its own state test is the library's machinery: it makes
// no caller a leader.
func (r *Raft) Apply(cmd []byte) Future {
	if r.State() != Leader {
		return errorFuture{ErrNotLeader}
	}
	return errorFuture{}
}
