package kubestore

import (
	"testing"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestMain lets the conformance suite and most tests share one
// kube-apiserver (it takes many seconds to start); tests that restart it
// start their own with testserver.NewKubeAPIServer.
func TestMain(m *testing.M) { testserver.Main(m) }
