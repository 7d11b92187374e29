package competingschedulers_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/competingschedulers"
)

func TestCompetingSchedulers(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, competingschedulers.Analyzer, "le2001", "le2001/wire", "le2001/top", "le2001/commute", "le2001/quiet", "le2001/loud", "le2001/asynqqueue")
}
