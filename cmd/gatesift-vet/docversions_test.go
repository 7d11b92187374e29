package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// changelogState returns the versions CHANGELOG.md has a heading for, each
// mapped to whether it is released: "## [v0.1.0] - 2026-12-01" is,
// "## [v0.1.0] - unreleased" is not.
func changelogState(t *testing.T, root string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## \[(v\d+\.\d+\.\d+[^\]]*)\](?: - (.*))?$`)
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	state := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
		state[m[1]] = date.MatchString(strings.TrimSpace(m[2]))
	}
	return state
}

// semver is a version as Go spells it, without trailing punctuation.
const semver = `(v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*[0-9A-Za-z])?)`

var (
	// go install .../gatesift-vet/cmd/gatesift-vet@v0.1.0, go get ...@v0.1.0
	installVersion = regexp.MustCompile(`github\.com/gatesift/gatesift-vet(?:/[\w./-]*)?@` + semver)
	// the plugin entry of a .custom-gcl.yml: its version comes a few lines
	// after its module
	pluginVersion = regexp.MustCompile(`module: github\.com/gatesift/gatesift-vet\n(?:[ \t]*(?:#.*|import: .*)?\n){0,8}?[ \t]*version: ` + semver)
	// a version of gatesift-vet itself named in prose or sample output
	namedVersion = regexp.MustCompile(`(?:Since: |gatesift-vet version |"version": ")` + semver)
	// a link to a release or a comparison with one
	releaseLink = regexp.MustCompile(`gatesift/gatesift-vet/(?:releases/tag/|compare/)` + semver)
)

// TestDocsNameOnlyWhatExists: the documentation installs, pins or links only
// released versions (CHANGELOG.md headings with a date), and names only
// versions CHANGELOG.md has (the unreleased one it describes included).
func TestDocsNameOnlyWhatExists(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	state := changelogState(t, root)
	if len(state) == 0 {
		t.Fatal("CHANGELOG.md has no version headings")
	}
	for file, text := range docFiles(t, root) {
		for _, re := range []*regexp.Regexp{installVersion, pluginVersion, releaseLink} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				if released, ok := state[m[1]]; !ok || !released {
					t.Errorf("%s: %q needs release %s, which CHANGELOG.md does not record as released", file, m[0], m[1])
				}
			}
		}
		for _, m := range namedVersion.FindAllStringSubmatch(text, -1) {
			if _, ok := state[m[1]]; !ok {
				t.Errorf("%s: %q names %s, which CHANGELOG.md has no entry for", file, m[0], m[1])
			}
		}
	}
}

// docFiles returns the tracked Markdown files outside corpus/ and
// testdata/ (third-party material), by path relative to root.
func docFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	var names []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "*.md").Output(); err == nil {
		names = strings.Fields(string(out))
	} else {
		// Not a git checkout (a module zip, say): walk the tree instead.
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(root, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	files := map[string]string{}
	for _, name := range names {
		if strings.HasPrefix(name, "corpus/") || strings.Contains(name, "testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	if _, ok := files["README.md"]; !ok {
		t.Fatalf("README.md not among the documentation files: %v", names)
	}
	return files
}

func TestDocVersionPatterns(t *testing.T) {
	for text, want := range map[string]string{
		"go install github.com/gatesift/gatesift-vet/cmd/gatesift-vet@v0.1.0\n":                                                                                    "v0.1.0",
		"  - module: github.com/gatesift/gatesift-vet\n    import: github.com/gatesift/gatesift-vet/plugin/golangci\n    # a comment\n    version: v0.2.0 # tag\n": "v0.2.0",
		"[v0.1.0]: https://github.com/gatesift/gatesift-vet/releases/tag/v0.1.0\n":                                                                                 "v0.1.0",
		"[Unreleased]: https://github.com/gatesift/gatesift-vet/compare/v0.1.0...HEAD\n":                                                                           "v0.1.0",
		"go install github.com/gatesift/gatesift-vet/cmd/gatesift-vet@v0.2.0-rc.1.\n":                                                                              "v0.2.0-rc.1",
		"go install github.com/gatesift/gatesift-vet/cmd/gatesift-vet@latest\n":                                                                                    "",
		"  - module: github.com/gatesift/gatesift-vet\n    version: latest\n":                                                                                      "",
	} {
		got := ""
		for _, re := range []*regexp.Regexp{installVersion, pluginVersion, releaseLink} {
			if m := re.FindStringSubmatch(text); m != nil {
				got = m[1]
			}
		}
		if got != want {
			t.Errorf("%q: found version %q, want %q", text, got, want)
		}
	}
}
