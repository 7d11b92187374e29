package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Finding is one diagnostic from the go vet / unitchecker JSON tree, with its
// position resolved against the module copy it was produced in.
type Finding struct {
	Package  string    `json:"package"`
	Analyzer string    `json:"analyzer"`
	Category string    `json:"category"`
	Message  string    `json:"message"`
	Posn     string    `json:"posn"`          // as printed by the tool
	File     string    `json:"file"`          // slash path relative to the module root; "" if outside it
	Line     int       `json:"line"`          // 0 if the position had no line
	Col      int       `json:"col,omitempty"` // 0 if absent
	Related  []Related `json:"related,omitempty"`
}

// Related is a related-information entry of a diagnostic.
type Related struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
}

// AnalyzerError is an analyzer that failed on a package: the JSON tree holds
// {"error": "..."} in place of its diagnostics list.
type AnalyzerError struct {
	Package  string `json:"package"`
	Analyzer string `json:"analyzer"`
	Error    string `json:"error"`
}

type jsonDiag struct {
	Posn     string    `json:"posn"`
	End      string    `json:"end"`
	Message  string    `json:"message"`
	Category string    `json:"category"`
	Related  []Related `json:"related"`
}

// parseVetJSON reads the JSON tree printed by `gatesift-vet -json` or
// `go vet -json`. go vet prints one tree per package, each preceded by a
// "# pkg" comment line, so the input is treated as a stream of trees with
// comment lines dropped. Diagnostics that appear under several package keys
// (a package and its test variant) are kept once. Positions are made relative
// to root.
func parseVetJSON(out []byte, root string) ([]Finding, []AnalyzerError, error) {
	var clean bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "#") {
			continue
		}
		clean.Write(sc.Bytes())
		clean.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}

	var findings []Finding
	var aerrs []AnalyzerError
	seen := map[string]bool{}
	dec := json.NewDecoder(&clean)
	for {
		var tree map[string]map[string]json.RawMessage
		err := dec.Decode(&tree)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("parsing JSON tree: %w", err)
		}
		// Sorted keys make the kept copy of a repeated diagnostic deterministic:
		// "pkg" sorts before its test variant "pkg [pkg.test]".
		for _, pkg := range sortedKeys(tree) {
			byAnalyzer := tree[pkg]
			for _, analyzer := range sortedKeys(byAnalyzer) {
				raw := byAnalyzer[analyzer]
				raw = bytes.TrimSpace(raw)
				switch {
				case len(raw) > 0 && raw[0] == '[':
					var diags []jsonDiag
					if err := json.Unmarshal(raw, &diags); err != nil {
						return nil, nil, fmt.Errorf("package %s, analyzer %s: %w", pkg, analyzer, err)
					}
					for _, d := range diags {
						key := d.Posn + "\x00" + d.Category + "\x00" + analyzer + "\x00" + d.Message
						if seen[key] {
							continue
						}
						seen[key] = true
						f := Finding{Package: pkg, Analyzer: analyzer, Category: d.Category,
							Message: d.Message, Posn: d.Posn, Related: d.Related}
						abs, line, col := splitPosn(d.Posn)
						f.Line, f.Col = line, col
						f.File = relToRoot(root, abs)
						findings = append(findings, f)
					}
				case len(raw) > 0 && raw[0] == '{':
					var e struct {
						Error string `json:"error"`
					}
					if err := json.Unmarshal(raw, &e); err != nil {
						return nil, nil, fmt.Errorf("package %s, analyzer %s: %w", pkg, analyzer, err)
					}
					aerrs = append(aerrs, AnalyzerError{Package: pkg, Analyzer: analyzer, Error: e.Error})
				case string(raw) == "null":
					// no diagnostics
				default:
					return nil, nil, fmt.Errorf("package %s, analyzer %s: unexpected value %.40q", pkg, analyzer, raw)
				}
			}
		}
	}
	sortFindings(findings)
	sort.Slice(aerrs, func(i, j int) bool {
		if aerrs[i].Package != aerrs[j].Package {
			return aerrs[i].Package < aerrs[j].Package
		}
		return aerrs[i].Analyzer < aerrs[j].Analyzer
	})
	return findings, aerrs, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Category, b.Category))
	})
}

// splitPosn splits "file:line:col" or "file:line" (file may itself contain
// colons) into its parts. A position without numbers yields line 0.
func splitPosn(posn string) (file string, line, col int) {
	file = posn
	var nums []int
	for len(nums) < 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil {
			break
		}
		nums = append(nums, n)
		file = file[:i]
	}
	switch len(nums) {
	case 1:
		line = nums[0]
	case 2:
		line, col = nums[1], nums[0]
	}
	return file, line, col
}

// relToRoot returns file as a slash path relative to root, or "" when file is
// not under root (a dependency, GOROOT, a cgo temp file).
func relToRoot(root, file string) string {
	if file == "" {
		return ""
	}
	if !filepath.IsAbs(file) {
		// Relative positions are relative to the directory the tool ran in,
		// which is the module root.
		rel := filepath.ToSlash(filepath.Clean(file))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return ""
		}
		return rel
	}
	for _, r := range []string{root, evalSymlinks(root)} {
		rel, err := filepath.Rel(r, file)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

func evalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
