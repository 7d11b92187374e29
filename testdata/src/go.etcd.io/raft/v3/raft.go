// Package raft is a test stub of go.etcd.io/raft/v3's node status.
package raft

// StateType is a node's role.
type StateType uint64

// The roles.
const (
	StateFollower StateType = iota
	StateCandidate
	StateLeader
)

// SoftState is the volatile part of the status.
type SoftState struct {
	Lead      uint64
	RaftState StateType
}

// Status is what Node.Status returns.
type Status struct {
	ID uint64
	SoftState
}

// Node is a raft node.
type Node interface{ Status() Status }
