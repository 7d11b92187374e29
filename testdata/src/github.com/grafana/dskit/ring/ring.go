// Package ring is a stand-in for the API surface of dskit's hash ring that
// the fixtures use: the lookup of a key's owners.
package ring

import "errors"

// Operation says which instances a lookup may return.
type Operation uint32

// Write is the operation of a write path lookup.
const Write Operation = 1

// InstanceDesc is one instance of the ring.
type InstanceDesc struct {
	Addr string
	Id   string
}

// ReplicationSet is the owners of a key.
type ReplicationSet struct {
	Instances []InstanceDesc
}

// GetAddresses returns the owners' addresses.
func (r ReplicationSet) GetAddresses() []string {
	out := make([]string, 0, len(r.Instances))
	for _, in := range r.Instances {
		out = append(out, in.Addr)
	}
	return out
}

// Includes reports whether addr is among the owners.
func (r ReplicationSet) Includes(addr string) bool {
	for _, in := range r.Instances {
		if in.Addr == addr {
			return true
		}
	}
	return false
}

// ErrTooFewHealthy is returned when the ring has too few healthy instances.
var ErrTooFewHealthy = errors.New("too few healthy instances")

// ReadRing reads the ring.
type ReadRing interface {
	Get(key uint32, op Operation, bufDescs []InstanceDesc, bufHosts, bufZones []string) (ReplicationSet, error)
}

// Ring is the ring client.
type Ring struct {
	instances []InstanceDesc
}

// Get returns the owners of key.
func (r *Ring) Get(key uint32, op Operation, bufDescs []InstanceDesc, bufHosts, bufZones []string) (ReplicationSet, error) {
	if len(r.instances) == 0 {
		return ReplicationSet{}, ErrTooFewHealthy
	}
	return ReplicationSet{Instances: r.instances[:1]}, nil
}
