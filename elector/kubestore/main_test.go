package kubestore

import (
	"os"
	"testing"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestMain lets the conformance suite and most tests share one
// kube-apiserver (it takes many seconds to start); tests that restart it
// start their own with testserver.NewKubeAPIServer. With childEnv set, the
// test binary is instead a candidate process for the process fault tests
// (process_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	testserver.Main(m)
}
