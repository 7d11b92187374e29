// Package raft is a test stub of github.com/seaweedfs/raft's server API.
package raft

// The states a server reports.
const (
	Stopped   = "stopped"
	Follower  = "follower"
	Candidate = "candidate"
	Leader    = "leader"
)

// Server is a raft node.
type Server interface {
	Name() string
	Leader() string
	State() string
}
