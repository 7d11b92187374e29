package main

// Failure isolation, as go vet does it: a package that does not load or
// type-check is reported with its error, and every package that does not
// import it is still analyzed.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// The module of the output-format tests: a package with a type error, one
// with an import no module provides, one whose _test.go does not
// type-check, and a good package with a finding.
func brokenModule(t *testing.T) string {
	t.Helper()
	return writeModule(t, map[string]string{
		"good/good.go":             chargeIn("good"),
		"typeerr/typeerr.go":       "package typeerr\n\nfunc F() int { return \"s\" }\n",
		"badimport/badimport.go":   "package badimport\n\nimport \"example.com/nosuch/pkg\"\n\nvar X = pkg.Y\n",
		"brokentest/brokentest.go": chargeIn("brokentest"),
		"brokentest/pods_test.go":  "package brokentest\n\nimport \"testing\"\n\nfunc TestPods(t *testing.T) { _ = dummyPodController }\n",
	})
}

// What each broken package of brokenModule must be reported with: the
// package, the file:line:col and a part of the message.
type loadErrorWant struct {
	pkg, file string
	line, col int
	msg       string
}

var brokenModuleErrors = []loadErrorWant{
	{"example.com/x/typeerr", "typeerr/typeerr.go", 3, 23, `cannot use "s"`},
	{"example.com/x/brokentest [example.com/x/brokentest.test]", "brokentest/pods_test.go", 5, 35, "undefined: dummyPodController"},
	// go list puts the error on the missing package, at the import.
	{"example.com/nosuch/pkg", "badimport/badimport.go", 3, 8, "providing package example.com/nosuch/pkg"},
}

// The findings every format must keep: the good package's and, with the
// default -test=true, the non-test variant of the package whose _test.go
// is broken.
var brokenModuleFindings = []string{"good/good.go:10:12", "brokentest/brokentest.go:10:12"}

// -json carries each package that does not load under the key "load", in
// go vet's {"error": "..."} shape, with each error's posn and message, and
// each package skipped because of one, with its broken imports; the
// findings of the rest are there, and the exit code is 1.
func TestLoadErrorsInJSON(t *testing.T) {
	t.Parallel()
	dir := brokenModule(t)
	r := vet(t, dir, "-json", "./...")
	if r.code != exitTool {
		t.Errorf("-json: want exit 1 for the packages that do not load; %v", r)
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &tree); err != nil {
		t.Fatalf("-json output does not parse: %v\n%s", err, r.stdout)
	}
	// Every entry keeps go vet's shape: a list of diagnostics, or an
	// object with a non-empty "error".
	for pkg, analyzers := range tree {
		for name, raw := range analyzers {
			var list []json.RawMessage
			var failed struct{ Error string }
			if json.Unmarshal(raw, &list) != nil && (json.Unmarshal(raw, &failed) != nil || failed.Error == "") {
				t.Errorf("%s > %s is neither a list nor {\"error\": ...}: %s", pkg, name, raw)
			}
		}
	}
	for _, want := range brokenModuleFindings {
		if !strings.Contains(r.stdout, string(filepath.Separator)+filepath.FromSlash(want)+`"`) {
			t.Errorf("the finding at %s is lost:\n%s", want, r.stdout)
		}
	}
	type loadEntry struct {
		Error  string
		Errors []struct {
			Posn    string
			Message string
		}
		BrokenImports []string `json:"broken_imports"`
	}
	load := func(pkg string) loadEntry {
		t.Helper()
		var e loadEntry
		raw, ok := tree[pkg]["load"]
		if !ok {
			t.Errorf("no %q > load entry:\n%s", pkg, r.stdout)
			return e
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Errorf("%s > load: %v", pkg, err)
		}
		return e
	}
	for _, want := range brokenModuleErrors {
		e := load(want.pkg)
		posn := fmt.Sprintf("%s:%d:%d", filepath.Join(dir, filepath.FromSlash(want.file)), want.line, want.col)
		if len(e.Errors) != 1 || e.Errors[0].Posn != posn || !strings.Contains(e.Errors[0].Message, want.msg) ||
			!strings.Contains(e.Error, want.msg) {
			t.Errorf("%s > load: want one error at %s with %q, got %+v", want.pkg, posn, want.msg, e)
		}
	}
	if e := load("example.com/x/badimport"); len(e.BrokenImports) != 1 || e.BrokenImports[0] != "example.com/nosuch/pkg" || e.Error == "" {
		t.Errorf("example.com/x/badimport > load: want it not analyzed because of example.com/nosuch/pkg, got %+v", e)
	}
	if _, ok := tree["example.com/x/good"]["load"]; ok {
		t.Errorf("the good package has a load entry:\n%s", r.stdout)
	}
}

type sarifNotificationDoc struct {
	Runs []struct {
		Invocations []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level      string
				Message    struct{ Text string }
				Descriptor struct{ ID string }
				Properties struct{ Package string }
				Locations  []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
		Results []struct {
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }
					Region           struct{ StartLine, StartColumn int }
				}
			}
		}
	}
}

// checkSARIFLoadErrors checks that a SARIF log of brokenModule says the
// run was not successful, with one error notification per broken package
// at its position and one for the package skipped because of its import.
func checkSARIFLoadErrors(t *testing.T, path string) sarifNotificationDoc {
	t.Helper()
	readSARIF(t, loadSARIFSchema(t), path) // validates against the schema
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc sarifNotificationDoc
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Invocations) != 1 {
		t.Fatalf("want one run with one invocation: %v\n%s", err, data)
	}
	inv := doc.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful {
		t.Errorf("executionSuccessful is true although packages were not analyzed:\n%s", data)
	}
	for _, want := range brokenModuleErrors {
		found := false
		for _, n := range inv.ToolExecutionNotifications {
			if n.Properties.Package != want.pkg || len(n.Locations) != 1 {
				continue
			}
			loc := n.Locations[0].PhysicalLocation
			found = n.Level == "error" && n.Descriptor.ID == "load-error" &&
				strings.Contains(n.Message.Text, want.pkg) && strings.Contains(n.Message.Text, want.msg) &&
				loc.ArtifactLocation.URI == want.file && loc.ArtifactLocation.URIBaseID == "SRCROOT" &&
				loc.Region.StartLine == want.line && loc.Region.StartColumn == want.col
		}
		if !found {
			t.Errorf("no error notification for %s at %s:%d:%d with %q:\n%s", want.pkg, want.file, want.line, want.col, want.msg, data)
		}
	}
	skipped := false
	for _, n := range inv.ToolExecutionNotifications {
		skipped = skipped || n.Properties.Package == "example.com/x/badimport" && n.Level == "error" &&
			n.Descriptor.ID == "not-analyzed" && strings.Contains(n.Message.Text, "example.com/nosuch/pkg")
	}
	if !skipped {
		t.Errorf("no error notification that example.com/x/badimport is not analyzed:\n%s", data)
	}
	return doc
}

// SARIF says the run did not succeed and why, in
// invocations[].toolExecutionNotifications; the findings of the packages
// that load are results; the exit code is 1, also with -fail-on-findings.
func TestLoadErrorsInSARIF(t *testing.T) {
	t.Parallel()
	dir := brokenModule(t)
	out := filepath.Join(dir, "out.sarif")
	r := vet(t, dir, "-format=sarif", "-fail-on-findings", "-o", out, "./...")
	if r.code != exitTool {
		t.Errorf("SARIF: want exit 1 for the packages that do not load; %v", r)
	}
	doc := checkSARIFLoadErrors(t, out)
	var got []string
	for _, res := range doc.Runs[0].Results {
		l := res.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s:%d:%d", l.ArtifactLocation.URI, l.Region.StartLine, l.Region.StartColumn))
	}
	for _, want := range brokenModuleFindings {
		if !slices.Contains(got, want) {
			t.Errorf("the finding at %s is lost; results at %v", want, got)
		}
	}
}

// A baseline that accepts every finding hides the findings, never the
// packages that were not analyzed: SARIF and JSON still carry them and the
// exit code stays 1.
func TestBaselineKeepsLoadErrors(t *testing.T) {
	t.Parallel()
	// The baseline comes from the same code without the broken packages
	// (a baseline of a partial run is refused).
	clean := writeModule(t, map[string]string{
		"good/good.go":             chargeIn("good"),
		"brokentest/brokentest.go": chargeIn("brokentest"),
	})
	base := filepath.Join(clean, "baseline.json")
	if r := vet(t, clean, "-write-baseline", base, "./..."); r.code != exitOK {
		t.Fatalf("-write-baseline: %v", r)
	}
	dir := brokenModule(t)
	out := filepath.Join(dir, "out.sarif")
	r := vet(t, dir, "-baseline", base, "-format=sarif", "-o", out, "./...")
	if r.code != exitTool {
		t.Errorf("SARIF with a baseline: want exit 1; %v", r)
	}
	if doc := checkSARIFLoadErrors(t, out); len(doc.Runs[0].Results) != 0 {
		t.Errorf("the baseline is not applied: %d results", len(doc.Runs[0].Results))
	}
	j := vet(t, dir, "-baseline", base, "-json", "./...")
	if j.code != exitTool {
		t.Errorf("-json with a baseline: want exit 1; %v", j)
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(j.stdout), &tree); err != nil {
		t.Fatalf("-json output does not parse: %v\n%s", err, j.stdout)
	}
	for _, want := range append(slices.Clone(brokenModuleErrors), loadErrorWant{pkg: "example.com/x/badimport"}) {
		if _, ok := tree[want.pkg]["load"]; !ok {
			t.Errorf("-json with a baseline: no %q > load entry:\n%s", want.pkg, j.stdout)
		}
	}
	if strings.Contains(j.stdout, "localsingleton") {
		t.Errorf("-json: the baseline is not applied:\n%s", j.stdout)
	}
}

// The inventory reports say first which packages were not analyzed, with
// their errors, so an incomplete inventory does not look complete; the
// entries of the packages that load are there.
func TestLoadErrorsInReports(t *testing.T) {
	t.Parallel()
	dir := brokenModule(t)
	j := vet(t, dir, "-report=json", "./...")
	if j.code != exitTool {
		t.Errorf("-report=json: want exit 1; %v", j)
	}
	var doc struct {
		Library     []struct{ Site struct{ File string } }
		NotAnalyzed []struct {
			Package       string
			Errors        []string
			BrokenImports []string `json:"broken_imports"`
		} `json:"not_analyzed"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatalf("-report=json does not parse: %v\n%s", err, j.stdout)
	}
	for _, want := range brokenModuleErrors {
		found := false
		for _, na := range doc.NotAnalyzed {
			found = found || na.Package == want.pkg && len(na.Errors) == 1 &&
				strings.HasPrefix(na.Errors[0], fmt.Sprintf("%s:%d:%d: ", want.file, want.line, want.col)) && strings.Contains(na.Errors[0], want.msg)
		}
		if !found {
			t.Errorf("-report=json: %s with %s:%d:%d %q not in not_analyzed:\n%s", want.pkg, want.file, want.line, want.col, want.msg, j.stdout)
		}
	}
	skipped := false
	for _, na := range doc.NotAnalyzed {
		skipped = skipped || na.Package == "example.com/x/badimport" && slices.Equal(na.BrokenImports, []string{"example.com/nosuch/pkg"})
	}
	if !skipped {
		t.Errorf("-report=json: example.com/x/badimport is not in not_analyzed with its broken import:\n%s", j.stdout)
	}
	var sites []string
	for _, e := range doc.Library {
		sites = append(sites, e.Site.File)
	}
	if !slices.Contains(sites, "good/good.go") || !slices.Contains(sites, "brokentest/brokentest.go") {
		t.Errorf("-report=json: the entries of the packages that load are lost: %v", sites)
	}

	for _, format := range []string{"markdown", "html"} {
		r := vet(t, dir, "-report="+format, "./...")
		if r.code != exitTool {
			t.Errorf("-report=%s: want exit 1; %v", format, r)
		}
		notAnalyzed := strings.Index(r.stdout, "Not analyzed")
		if notAnalyzed < 0 || notAnalyzed > strings.Index(r.stdout, "good/good.go:10:12") {
			t.Errorf("-report=%s: no \"Not analyzed\" section before the entries:\n%s", format, r.stdout)
			continue
		}
		for _, want := range []string{"example.com/x/typeerr", "typeerr/typeerr.go:3:23", "undefined: dummyPodController", "example.com/x/badimport"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("-report=%s: %q missing:\n%s", format, want, r.stdout)
			}
		}
	}
}
