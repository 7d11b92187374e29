package localsingleton_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/localsingleton"
	"github.com/gatesift/gatesift-vet/config"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLocalSingleton(t *testing.T) {
	analysistest.Run(t, testdata(t), localsingleton.Analyzer, "le1001", "le1001/jobs", "le1001/cronreg", "le1001/coord", "le1001/iface", "le1001/notime", "le1001/azure", "le1001/redigopool", "le1001/clocks", "le1001/callbacks", "le1001/ownclock", "le1001/cronjobs", "le1001/redisscript")
}

func TestStrictProfileAddsIdempotentWork(t *testing.T) {
	config.Overrides.Profile = "strict"
	defer func() { config.Overrides.Profile = "" }()
	analysistest.Run(t, testdata(t), localsingleton.Analyzer, "le1001strict")
}
