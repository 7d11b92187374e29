package main

// End-to-end tests of the output formats: the go vet JSON tree, SARIF
// (validated against the official schema), directives and baselines.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJSONTree(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": chargeGo})
	r := vet(t, dir, "-json", "./...")
	if r.code != exitOK {
		t.Fatalf("-json: want exit 0 despite findings; %v", r)
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &tree); err != nil {
		t.Fatalf("-json output does not parse: %v\n%s", err, r.stdout)
	}
	var diags []struct {
		Posn, End, Message, Category string
		Related                      []struct{ Posn, End, Message string }
	}
	raw, ok := tree["example.com/x"]["localsingleton"]
	if !ok {
		t.Fatalf("no example.com/x > localsingleton entry:\n%s", r.stdout)
	}
	if err := json.Unmarshal(raw, &diags); err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0].Category != "LE1001" ||
		!strings.HasSuffix(diags[0].Posn, string(filepath.Separator)+chargePos) || len(diags[0].Related) == 0 {
		t.Errorf("unexpected diagnostics: %+v", diags)
	}
}

// The module for SARIF and directive tests: one finding, one suppressed
// with a reason, one directive without a reason.
const directivesGo = `package main

import (
	"context"
	"database/sql"
	"time"
)

func charge(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.ExecContext(ctx, "INSERT INTO charges (amount) VALUES (1)")
	}
}

func refund(ctx context.Context, db *sql.DB) {
	//gatesift:ignore LE1001 -- refunds run on one replica only (deployment has 1 pod)
	for range time.Tick(time.Hour) {
		db.ExecContext(ctx, "INSERT INTO refunds (amount) VALUES (1)")
	}
}

func audit(ctx context.Context, db *sql.DB) {
	//gatesift:ignore LE1001
	for range time.Tick(time.Hour) {
		db.ExecContext(ctx, "INSERT INTO audit (amount) VALUES (1)")
	}
}

func main() {}
`

func TestDirectives(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": directivesGo})
	r := vet(t, dir, "-c", "0", "./...")
	if !strings.Contains(r.stdout, "(LE1001)\n10\t\tfor range time.Tick(time.Minute) {\n") {
		t.Errorf("-c 0 should print the flagged line after the finding; %v", r)
	}
	le1001 := findingLines(r.stdout, "LE1001")
	le9001 := findingLines(r.stdout, "LE9001")
	// charge is reported; refund is suppressed; audit's directive has no
	// reason, so it suppresses nothing and is itself reported.
	if len(le1001) != 2 || !strings.HasPrefix(le1001[0], chargePos) || !strings.HasPrefix(le1001[1], "main.go:24:") {
		t.Errorf("want LE1001 in charge and audit only; %v", r)
	}
	if len(le9001) != 1 || !strings.HasPrefix(le9001[0], "main.go:23:") || !strings.Contains(le9001[0], "reason") {
		t.Errorf("want LE9001 at the directive without reason; %v", r)
	}
}

type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name, Version string
				Rules         []struct {
					ID, HelpURI          string
					DefaultConfiguration struct{ Level string }
				}
			}
		}
		Results []struct {
			RuleID    string
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI, URIBaseID string }
					Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
				}
			}
			RelatedLocations    []json.RawMessage
			Suppressions        []struct{ Kind, Justification string }
			PartialFingerprints map[string]string
		}
	}
}

func readSARIF(t *testing.T, schema *jsonSchema, path string) sarifDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if errs := schema.validateDoc(data); len(errs) > 0 {
		t.Fatalf("%s does not validate against the SARIF 2.1.0 schema:\n%s", path, strings.Join(errs, "\n"))
	}
	var doc sarifDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("want one run, got %d", len(doc.Runs))
	}
	return doc
}

func TestSARIF(t *testing.T) {
	t.Parallel()
	schema := loadSARIFSchema(t)
	dir := writeModule(t, map[string]string{
		"main.go":        directivesGo,
		".gatesift.yaml": "severity:\n  LE9001: error\n",
	})
	out := filepath.Join(dir, "out.sarif")
	r := vet(t, dir, "-format=sarif", "-o", out, "./...")
	if r.code != exitOK || r.stdout != "" {
		t.Fatalf("SARIF with -o: want exit 0 and nothing on stdout; %v", r)
	}
	doc := readSARIF(t, schema, out)
	run := doc.Runs[0]
	if run.Tool.Driver.Name != "gatesift-vet" || len(run.Tool.Driver.Rules) < 10 {
		t.Errorf("driver: %+v", run.Tool.Driver)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if !strings.HasSuffix(rule.HelpURI, "#"+rule.ID) {
			t.Errorf("rule %s: helpUri %s", rule.ID, rule.HelpURI)
		}
		if rule.ID == "LE9001" && rule.DefaultConfiguration.Level != "error" {
			t.Errorf("LE9001: the config's severity override is not applied: %+v", rule)
		}
	}
	fingerprints := map[string]string{} // fingerprint -> "rule line"
	var suppressed, reported int
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "main.go" || loc.ArtifactLocation.URIBaseID != "SRCROOT" {
			t.Errorf("location not relative to the module root: %+v", loc)
		}
		fp := res.PartialFingerprints["gatesift/v1"]
		if fp == "" || fingerprints[fp] != "" {
			t.Errorf("missing or duplicate fingerprint %q", fp)
		}
		fingerprints[fp] = fmt.Sprintf("%s %d", res.RuleID, loc.Region.StartLine)
		if len(res.Suppressions) > 0 {
			suppressed++
			if s := res.Suppressions[0]; s.Kind != "inSource" || !strings.Contains(s.Justification, "deployment has 1 pod") || loc.Region.StartLine != 17 {
				t.Errorf("suppression: %+v at line %d", s, loc.Region.StartLine)
			}
			continue
		}
		reported++
		if res.RuleID == "LE1001" && loc.Region.StartLine == 10 {
			if loc.Region.StartColumn != 12 || loc.Region.EndLine != 10 || len(res.RelatedLocations) == 0 || res.Level != "warning" {
				t.Errorf("charge finding: %+v", res)
			}
		}
	}
	if suppressed != 1 || reported != 3 {
		t.Errorf("want 3 reported results and 1 suppressed, got %d and %d", reported, suppressed)
	}

	// Fingerprints do not depend on line numbers: insert a blank line and a
	// comment above everything and they stay the same.
	writeFile(t, filepath.Join(dir, "main.go"), strings.Replace(directivesGo, "package main\n", "package main\n\n// Billing jobs.\n", 1))
	if r := vet(t, dir, "-format=sarif", "-fail-on-findings", "-o", out, "./..."); r.code != exitFindings {
		t.Errorf("SARIF -fail-on-findings: want exit 3; %v", r)
	}
	moved := readSARIF(t, schema, out)
	if len(moved.Runs[0].Results) != len(run.Results) {
		t.Fatalf("result count changed after inserting lines")
	}
	for _, res := range moved.Runs[0].Results {
		fp := res.PartialFingerprints["gatesift/v1"]
		before, ok := fingerprints[fp]
		if !ok {
			t.Errorf("fingerprint of %s at line %d changed when lines were inserted above it", res.RuleID, res.Locations[0].PhysicalLocation.Region.StartLine)
		}
		if before == fmt.Sprintf("%s %d", res.RuleID, res.Locations[0].PhysicalLocation.Region.StartLine) {
			t.Errorf("%s did not move; the test inserts nothing", before)
		}
	}
}

func TestBaseline(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": chargeGo})
	base := filepath.Join(dir, "baseline.json")
	if r := vet(t, dir, "-write-baseline", base, "./..."); r.code != exitOK {
		t.Fatalf("-write-baseline: %v", r)
	}
	data, err := os.ReadFile(base)
	if err != nil || !bytes.Contains(data, []byte(`"version": 1`)) || !bytes.Contains(data, []byte("LE1001")) {
		t.Fatalf("baseline file: %v\n%s", err, data)
	}
	if r := vet(t, dir, "-baseline", base, "./..."); r.code != exitOK || r.stdout != "" {
		t.Errorf("re-run against the baseline: want no findings; %v", r)
	}
	// Written again for the same code, a baseline is byte-for-byte the same.
	again := filepath.Join(dir, "again.json")
	vet(t, dir, "-write-baseline", again, "./...")
	if data2, _ := os.ReadFile(again); !bytes.Equal(data, data2) {
		t.Errorf("baseline not stable:\n%s\n---\n%s", data, data2)
	}

	// Lines inserted above keep the old finding baselined; a new finding
	// is the only one reported.
	src := strings.Replace(chargeGo, "func main() {}", `func refund(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Hour)
	for range t.C {
		db.ExecContext(ctx, "INSERT INTO refunds (amount) VALUES (1)")
	}
}

func main() {}`, 1)
	src = strings.Replace(src, "package main\n", "package main\n\n// Billing.\n", 1)
	writeFile(t, filepath.Join(dir, "main.go"), src)
	r := vet(t, dir, "-baseline", base, "./...")
	got := findingLines(r.stdout, "LE1001")
	if r.code != exitFindings || len(got) != 1 || !strings.Contains(got[0], "NewTicker") {
		t.Errorf("want only the new NewTicker finding; %v", r)
	}

	missing := filepath.Join(dir, "nosuch.json")
	if r := vet(t, dir, "-baseline", missing, "./..."); r.code != exitTool || !strings.Contains(r.stderr, "nosuch.json") {
		t.Errorf("missing baseline: want exit 1 naming the file; %v", r)
	}
	writeFile(t, base, "{not json")
	if r := vet(t, dir, "-baseline", base, "./..."); r.code != exitTool || !strings.Contains(r.stderr, "baseline.json") {
		t.Errorf("corrupt baseline: want exit 1 naming the file; %v", r)
	}
}
