package main

import (
	"reflect"
	"testing"
)

// The lines gatesift-vet prints under GATESIFT_VET_GROWTH=1
// (cmd/gatesift-vet/growth.go, growthLine), among other stderr output.
func TestParseGrowth(t *testing.T) {
	stderr := "gatesift-vet: package x does not load\n" +
		"gatesift-vet: growth: 56/1127 packages 210 ms rss 40960 KB peak 40960 KB\n" +
		"gatesift-vet: growth: 1127/1127 packages 24700 ms rss 344064 KB peak 405504 KB\n"
	want := []growthPoint{{56, 1127, 210, 40960, 40960}, {1127, 1127, 24700, 344064, 405504}}
	if got := parseGrowth(stderr); !reflect.DeepEqual(got, want) {
		t.Errorf("parseGrowth = %v, want %v", got, want)
	}
}
