package etcdstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The Elector benchmarks measure the same vacancies as BenchmarkHandover
// and BenchmarkFailover, but through the elector core (Candidate.Run) on
// this store, which is what an application sees: handover from Resign until
// the standby's work starts; failover from a leader's crash until the
// standby's work starts. They are electorbench's measurements, the ones
// every store runs, with electorbench.Timing() (2 s lease, 500 ms renew,
// 200 ms retry); each candidate has its own client, as a separate process
// would.

func electorStores(b *testing.B) electorbench.Open {
	e := testserver.Etcd(b)
	return func(b *testing.B) electorbench.Store { return New(benchClient(b, e)) }
}

func BenchmarkElectorHandover(b *testing.B) { electorbench.Handover(b, electorStores(b)) }

func BenchmarkElectorFailover(b *testing.B) { electorbench.Failover(b, electorStores(b)) }
