package main

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// fingerprints computes the fingerprints of findings at the given lines of
// src, all in function fn with the same message unless msgs says otherwise.
func fingerprints(t *testing.T, src string, fn string, lines []int, msgs ...string) []string {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "pkg", "a.go")
	os.MkdirAll(filepath.Dir(file), 0o777)
	if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	res := &results{root: root, cwd: root}
	for i, l := range lines {
		msg := "time.Tick runs charge every 1m0s (see line 12)"
		if i < len(msgs) {
			msg = msgs[i]
		}
		res.findings = append(res.findings, &finding{
			ruleID: "LE1001",
			fn:     fn,
			pos:    token.Position{Filename: file, Line: l, Column: 2},
			diag:   analysis.Diagnostic{Message: msg},
		})
	}
	fingerprint(res)
	var out []string
	for _, f := range res.findings {
		if f.relFile != "pkg/a.go" {
			t.Errorf("relFile = %q", f.relFile)
		}
		out = append(out, f.fingerprint)
	}
	return out
}

func TestFingerprintIgnoresLineNumbers(t *testing.T) {
	src := "package a\n\nfunc f() {\n\tfor range time.Tick(time.Minute) {\n\t}\n}\n"
	moved := "package a\n\n// doc\n\nfunc f() {\n\t  for range time.Tick(time.Minute)   {\n\t}\n}\n"
	a := fingerprints(t, src, "f", []int{4})
	b := fingerprints(t, moved, "f", []int{6}, "time.Tick runs charge every 1m0s (see line 14)")
	if a[0] != b[0] {
		t.Errorf("moving a finding (and renumbering its message, reindenting its line) changed its fingerprint: %s vs %s", a[0], b[0])
	}
	if c := fingerprints(t, src, "g", []int{4}); c[0] == a[0] {
		t.Error("the enclosing function is not part of the fingerprint")
	}
	edited := strings.Replace(src, "time.Minute", "time.Hour", 1)
	if c := fingerprints(t, edited, "f", []int{4}); c[0] == a[0] {
		t.Error("the flagged line's text is not part of the fingerprint")
	}
}

func TestFingerprintOccurrenceIndex(t *testing.T) {
	src := "package a\n\nfunc f() {\n\tgo tick()\n\tgo tick()\n}\n"
	fps := fingerprints(t, src, "f", []int{4, 5})
	if fps[0] == fps[1] || !strings.HasSuffix(fps[0], ":0") || !strings.HasSuffix(fps[1], ":1") {
		t.Errorf("identical findings need distinct, ordered fingerprints: %v", fps)
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "b.json")
	fs := []*finding{
		{ruleID: "LE1001", relFile: "b.go", fn: "g", fingerprint: "bb:0", diag: analysis.Diagnostic{Message: "m2"}},
		{ruleID: "LE1001", relFile: "a.go", fn: "f", fingerprint: "aa:0", diag: analysis.Diagnostic{Message: "m1"}},
	}
	if err := writeBaseline(file, fs); err != nil {
		t.Fatal(err)
	}
	b, err := readBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Findings) != 2 || b.Findings[0].File != "a.go" {
		t.Errorf("baseline not sorted by file: %+v", b.Findings)
	}
	added := &finding{ruleID: "LE1001", fingerprint: "cc:0"}
	if got := b.filter(append(fs, added)); len(got) != 1 || got[0] != added {
		t.Errorf("filter kept %v", got)
	}
	for name, content := range map[string]string{
		"not json":       "{",
		"unknown field":  `{"version":1,"tool":"gatesift-vet","findings":[],"extra":1}`,
		"future version": `{"version":2,"tool":"gatesift-vet","findings":[]}`,
		"no fingerprint": `{"version":1,"tool":"gatesift-vet","findings":[{"rule":"LE1001"}]}`,
	} {
		os.WriteFile(file, []byte(content), 0o666)
		if _, err := readBaseline(file); err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: want an error naming the file, got %v", name, err)
		}
	}
}
