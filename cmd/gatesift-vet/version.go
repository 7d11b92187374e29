package main

import (
	"regexp"
	"runtime/debug"
)

// releaseVersion is the release this source tree is: the top released
// entry of CHANGELOG.md (a test keeps the two equal). A binary built from a
// checkout without VCS stamping reports it, since its build info says only
// "(devel)".
const releaseVersion = "v0.1.0"

// version is the version the binary reports in -V, -V=full, SARIF and the
// reports; see versionOf.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

// versionOf chooses the version from the build info:
//
//   - go install module@v0.1.0 records the module version: that is it.
//   - go install module@<commit> records a pseudo-version; so does a build in
//     a git checkout since Go 1.24, unless -buildvcs=false
//     (v0.0.0-20261130092159-ec5921f8ff10, +dirty with uncommitted changes).
//     It names the commit exactly, so it is reported as it is; -V says it
//     is a development build (versionDescription).
//   - a build without either says "(devel)": the source tree's
//     releaseVersion is the best that can be said.
func versionOf(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return releaseVersion
	}
	return bi.Main.Version
}

// pseudoVersion matches a Go pseudo-version (vX.Y.Z-yyyymmddhhmmss-rev,
// vX.Y.(Z+1)-0.yyyymmddhhmmss-rev or vX.Y.Z-pre.0.yyyymmddhhmmss-rev),
// with the +dirty suffix VCS stamping adds for a modified tree.
var pseudoVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.-]*\.)?(?:0\.)?\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// versionDescription is what -V prints after "gatesift-vet version ": the
// version, and for a pseudo-version the commit it names and that it is not
// a release.
func versionDescription(v string) string {
	m := pseudoVersion.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	d := v + " (a development build of commit " + m[1]
	if m[2] != "" {
		d += " with uncommitted changes"
	}
	return d + ", not a release)"
}
