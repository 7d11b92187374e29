package unfencedwrite_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/unfencedwrite"
)

// The fixture directory's .gatesift.yaml turns LE3003 on (it is off by
// default).
func TestUnfencedWrite(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, unfencedwrite.Analyzer, "le3003/...")
}
