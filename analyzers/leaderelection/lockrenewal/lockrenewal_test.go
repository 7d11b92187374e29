package lockrenewal_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/lockrenewal"
)

func TestLockRenewal(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, lockrenewal.Analyzer, "le3004/...")
}
