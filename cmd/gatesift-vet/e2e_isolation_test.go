package main

// Failure isolation, as go vet does it: a package that does not load or
// type-check is reported with its error, and every package that does not
// import it is still analyzed.

import (
	"os"
	"strings"
	"testing"
)

// chargeIn is chargeGo as a library package.
func chargeIn(pkg string) string {
	return strings.Replace(strings.Replace(chargeGo, "package main", "package "+pkg, 1), "func main() {}\n", "", 1)
}

// With the default -test=true, one _test.go that does not type-check
// loses only its own test package: the package itself, and the others,
// keep their findings, and the run exits 1 because of that package.
func TestBrokenTestFileLosesOnlyItsTestPackage(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"main.go":           chargeGo,
		"pods/pods.go":      chargeIn("pods"),
		"pods/pods_test.go": "package pods\n\nimport \"testing\"\n\nfunc TestPods(t *testing.T) { _ = dummyPodController }\n",
	})
	r := vet(t, dir, "./...")
	if r.code != exitTool {
		t.Errorf("want exit 1 for the broken test package; %v", r)
	}
	for _, want := range []string{chargePos, "pods/pods.go:10:12"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the finding at %s is lost; %v", want, r)
		}
	}
	if !strings.Contains(r.stderr, "pods/pods_test.go:5:35: undefined: dummyPodController") ||
		!strings.Contains(r.stderr, "example.com/x/pods [example.com/x/pods.test]") {
		t.Errorf("the broken test package and its error are not reported; %v", r)
	}
	if n := strings.Count(r.stderr, "undefined: dummyPodController"); n != 1 {
		t.Errorf("the error is reported %d times, want once; %v", n, r)
	}

	// go vet exits 1 too, and every finding it reports is reported here.
	// It reports less: with tests it vets the test variant of pods
	// instead of pods itself, so the broken test file loses pods.go too;
	// the standalone driver analyzes pods on its own as well.
	g := goVet(t, dir, "./...")
	if g.code != exitTool || !strings.Contains(g.stderr, "undefined: dummyPodController") {
		t.Errorf("go vet: want exit 1 and the type error; %v", g)
	}
	got := strings.Join(diagnosticLines(r.stdout), "\n")
	for _, l := range diagnosticLines(g.stderr) {
		if !strings.Contains(l, "dummyPodController") && !strings.Contains(got, l) {
			t.Errorf("go vet reports %q, the standalone driver does not; %v", l, r)
		}
	}

	// Without the tests nothing is broken.
	if r := vet(t, dir, "-test=false", "./..."); r.code != exitFindings || r.stderr != "" {
		t.Errorf("-test=false: want exit 3 and a clean stderr; %v", r)
	}
}

// A dependency that does not type-check is reported once; the packages
// importing it are named as not analyzed; an independent package is
// analyzed; JSON output still carries its findings.
func TestBrokenDependencyIsReportedAndTheRestAnalyzed(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"lib/lib.go":   "package lib\n\nfunc F() int { return \"s\" }\n",
		"app/app.go":   "package app\n\nimport \"example.com/x/lib\"\n\nvar X = lib.F()\n",
		"jobs/jobs.go": chargeIn("jobs"),
	})
	r := vet(t, dir, "./...")
	if r.code != exitTool {
		t.Errorf("want exit 1; %v", r)
	}
	if !strings.Contains(r.stdout, "jobs/jobs.go:10:12") {
		t.Errorf("the independent package's finding is lost; %v", r)
	}
	if !strings.Contains(r.stderr, "package example.com/x/lib does not load") || strings.Count(r.stderr, "lib/lib.go:3:") != 1 {
		t.Errorf("want the type error of lib once; %v", r)
	}
	if !strings.Contains(r.stderr, "not analyzed because an import does not load: example.com/x/app") {
		t.Errorf("want app named as not analyzed; %v", r)
	}
	j := vet(t, dir, "-json", "./...")
	if j.code != exitTool || !strings.Contains(j.stdout, "jobs.go:10:12") {
		t.Errorf("-json: want exit 1 and the finding; %v", j)
	}

	// A baseline of this partial run would forget lib's and app's findings.
	base := dir + "/baseline.json"
	if b := vet(t, dir, "-write-baseline", base, "./..."); b.code != exitTool || !strings.Contains(b.stderr, "not writing") {
		t.Errorf("-write-baseline: want exit 1 and no baseline; %v", b)
	}
	if _, err := os.Stat(base); err == nil {
		t.Errorf("-write-baseline wrote %s from a partial run", base)
	}
}
