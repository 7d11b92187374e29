package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// changelogVersion returns the version of the top released entry of
// CHANGELOG.md: the first "## [vX.Y.Z]" heading, skipping [Unreleased].
func changelogVersion(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heading := regexp.MustCompile(`^## \[(v\d+\.\d+\.\d+[^\]]*)\]`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := heading.FindStringSubmatch(sc.Text()); m != nil {
			return m[1]
		}
	}
	t.Fatal("CHANGELOG.md has no released version heading (## [vX.Y.Z])")
	return ""
}

func TestReleaseVersionMatchesChangelog(t *testing.T) {
	if got := changelogVersion(t); got != releaseVersion {
		t.Errorf("releaseVersion is %s, the top released entry of CHANGELOG.md is %s", releaseVersion, got)
	}
}

// TestVersionReported checks that a binary built from the checkout reports
// the release version in -V, -version, -V=full and the SARIF driver.
func TestVersionReported(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": chargeGo})
	for _, flag := range []string{"-V", "-version"} {
		if r := vet(t, dir, flag); r.code != exitOK || r.stdout != "gatesift-vet version "+releaseVersion+"\n" {
			t.Errorf("%s: %v", flag, r)
		}
	}
	full := vet(t, dir, "-V=full")
	if !regexp.MustCompile(`^gatesift-vet version ` + regexp.QuoteMeta(releaseVersion) + ` buildID=[0-9a-f]{64}\n$`).MatchString(full.stdout) {
		t.Errorf("-V=full: %v", full)
	}
	// cmd/go takes the whole line of a non-devel answer as the tool ID
	// (buildid.go toolID), so the line must still change with the config.
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "profile: strict\n")
	if again := vet(t, dir, "-V=full"); again.stdout == full.stdout {
		t.Errorf("-V=full does not change when the config does: %q", again.stdout)
	}

	out := filepath.Join(t.TempDir(), "out.sarif")
	if r := vet(t, dir, "-format=sarif", "-o", out, "./..."); r.code != exitOK {
		t.Fatalf("-format=sarif: %v", r)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version": "` + releaseVersion + `"`, `"semanticVersion": "` + strings.TrimPrefix(releaseVersion, "v") + `"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("SARIF lacks %s", want)
		}
	}
}
