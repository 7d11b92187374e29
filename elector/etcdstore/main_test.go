package etcdstore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestMain lets the conformance suite and the benchmarks share one etcd;
// tests that restart, kill or cut their server start a private one with
// testserver.NewEtcd.
func TestMain(m *testing.M) { testserver.Main(m) }
