package unsafeunlock_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/unsafeunlock"
)

func TestUnsafeUnlock(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, unsafeunlock.Analyzer, "le3002/...")
}
