package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// baselineVersion is the format of baseline files; a reader refuses other
// versions rather than silently reporting (or hiding) everything.
const baselineVersion = 1

// baseline is the file -write-baseline writes and -baseline reads: the
// fingerprints of accepted findings, with enough context for a reviewer of
// the file (rule, file, function, message). Only the fingerprint matches,
// and it does not depend on line numbers, so edits elsewhere in a file keep
// its findings baselined.
type baseline struct {
	Version  int             `json:"version"`
	Tool     string          `json:"tool"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	File        string `json:"file"` // relative to the module root
	Function    string `json:"function,omitempty"`
	Message     string `json:"message"`
}

func writeBaseline(filename string, findings []*finding) error {
	b := baseline{Version: baselineVersion, Tool: progname, Findings: []baselineEntry{}}
	for _, f := range findings {
		b.Findings = append(b.Findings, baselineEntry{
			Fingerprint: f.fingerprint,
			Rule:        f.ruleID,
			File:        f.relFile,
			Function:    f.fn,
			Message:     f.diag.Message,
		})
	}
	// Sorted without positions, so the file changes only when findings do.
	sort.Slice(b.Findings, func(i, j int) bool {
		x, y := b.Findings[i], b.Findings[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		return x.Fingerprint < y.Fingerprint
	})
	var buf bytes.Buffer
	if err := writeIndentedJSON(&buf, b); err != nil {
		return err
	}
	if err := os.WriteFile(filename, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing baseline: %v", err)
	}
	return nil
}

func readBaseline(filename string) (*baseline, error) {
	data, err := os.ReadFile(filename)
	if err != nil {
		return nil, fmt.Errorf("baseline: %v", err)
	}
	var b baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline %s: not a %s baseline: %v", filename, progname, err)
	}
	if b.Version != baselineVersion {
		return nil, fmt.Errorf("baseline %s: version %d, this %s reads version %d (rewrite it with -write-baseline)", filename, b.Version, progname, baselineVersion)
	}
	for i, e := range b.Findings {
		if e.Fingerprint == "" {
			return nil, fmt.Errorf("baseline %s: entry %d has no fingerprint", filename, i+1)
		}
	}
	return &b, nil
}

// filter drops the findings the baseline records.
func (b *baseline) filter(findings []*finding) []*finding {
	known := map[string]bool{}
	for _, e := range b.Findings {
		known[e.Fingerprint] = true
	}
	var out []*finding
	for _, f := range findings {
		if !known[f.fingerprint] {
			out = append(out, f)
		}
	}
	return out
}
