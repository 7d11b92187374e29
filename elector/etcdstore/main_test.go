package etcdstore

import (
	"os"
	"testing"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestMain lets the conformance suite and the benchmarks share one etcd;
// tests that restart, kill or cut their server start a private one with
// testserver.NewEtcd. With childEnv set, the test binary is instead a
// candidate process for the process fault tests (process_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	testserver.Main(m)
}
