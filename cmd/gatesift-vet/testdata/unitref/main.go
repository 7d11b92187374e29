// Command unitref is unitchecker with the whole suite and nothing of
// gatesift-vet's vet mode: the reference TestStdVetxMatchesUnitchecker
// compares the short path for standard-library dependencies against.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/gatesift/gatesift-vet/analyzers/suite"
)

// nonce is set by the test's -ldflags to a new value per build, so that go
// vet, which keys its result cache on the tool's bytes, runs it again.
var nonce string

func main() {
	if nonce == "" {
		panic("build with -ldflags=-X=main.nonce=...")
	}
	unitchecker.Main(suite.All()...)
}
