package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
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

// TestVersionReported checks that a binary built from the checkout without
// VCS stamping reports the release version in -V, -version, -V=full and the
// SARIF driver.
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

func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		bi      *debug.BuildInfo
		ok      bool
		want    string
		wantDoc string // versionDescription
	}{
		{"no build info", nil, false, releaseVersion, releaseVersion},
		{"checkout, -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, releaseVersion, releaseVersion},
		{"go install @v0.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0", Sum: "h1:x"}}, true, "v0.2.0", "v0.2.0"},
		{"go install @commit after v0.1.0",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261130092159-ec5921f8ff10", Sum: "h1:x"}}, true,
			"v0.1.1-0.20261130092159-ec5921f8ff10",
			"v0.1.1-0.20261130092159-ec5921f8ff10 (a development build of commit ec5921f8ff10, not a release)"},
		{"git checkout, no tag",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130092159-ec5921f8ff10"}}, true,
			"v0.0.0-20261130092159-ec5921f8ff10",
			"v0.0.0-20261130092159-ec5921f8ff10 (a development build of commit ec5921f8ff10, not a release)"},
		{"git checkout, edited",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130092159-ec5921f8ff10+dirty"}}, true,
			"v0.0.0-20261130092159-ec5921f8ff10+dirty",
			"v0.0.0-20261130092159-ec5921f8ff10+dirty (a development build of commit ec5921f8ff10 with uncommitted changes, not a release)"},
		{"after a prerelease",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.2.0-rc.1.0.20261130092159-ec5921f8ff10"}}, true,
			"v0.2.0-rc.1.0.20261130092159-ec5921f8ff10",
			"v0.2.0-rc.1.0.20261130092159-ec5921f8ff10 (a development build of commit ec5921f8ff10, not a release)"},
		{"a prerelease tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0-rc.1"}}, true, "v0.2.0-rc.1", "v0.2.0-rc.1"},
	} {
		got := versionOf(c.bi, c.ok)
		if got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
		if doc := versionDescription(got); doc != c.wantDoc {
			t.Errorf("%s: versionDescription = %q, want %q", c.name, doc, c.wantDoc)
		}
	}
}

// TestVersionReportedVCS checks a binary built as go build does by default
// in a git checkout since Go 1.24: stamped with the commit, it reports the
// pseudo-version Go derived from it, says so in -V, and uses the same
// version in -V=full and SARIF.
func TestVersionReportedVCS(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: a VCS-stamped build needs it")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("the source is not a git checkout (%v): nothing to stamp", err)
	}
	rev := strings.TrimSpace(string(head))[:12]
	bin := build(t, buildKey{vcs: true})
	dir := writeModule(t, map[string]string{"main.go": chargeGo})

	r := execIn(t, dir, bin, "-V")
	m := regexp.MustCompile(`^gatesift-vet version (v\d+\.\d+\.\d+-(?:0\.)?\d{14}-` + rev + `(?:\+dirty)?) \(a development build of commit ` + rev + `( with uncommitted changes)?, not a release\)\n$`).FindStringSubmatch(r.stdout)
	if r.code != exitOK || m == nil {
		// A checkout exactly at a clean release tag is stamped with the tag.
		if r.stdout != "gatesift-vet version "+releaseVersion+"\n" {
			t.Fatalf("-V of a VCS-stamped build: want a pseudo-version naming %s or %s; %v", rev, releaseVersion, r)
		}
		return
	}
	pseudo := m[1]
	if full := execIn(t, dir, bin, "-V=full"); !regexp.MustCompile(`^gatesift-vet version ` + regexp.QuoteMeta(pseudo) + ` buildID=[0-9a-f]{64}\n$`).MatchString(full.stdout) {
		t.Errorf("-V=full: %v", full)
	}
	out := filepath.Join(t.TempDir(), "out.sarif")
	if r := execIn(t, dir, bin, "-format=sarif", "-o", out, "./..."); r.code != exitOK {
		t.Fatalf("-format=sarif: %v", r)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"semanticVersion": "` + strings.TrimPrefix(pseudo, "v") + `"`; !strings.Contains(string(data), want) {
		t.Errorf("SARIF lacks %s", want)
	}
}
