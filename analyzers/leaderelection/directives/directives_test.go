package directives_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/directives"
)

func TestDirectives(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, directives.Analyzer, "le9001")
}
