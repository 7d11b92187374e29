package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The official SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5.json, OASIS; the
// copy shipped in the MIT-licensed npm package @microsoft/jest-sarif) is in
// testdata. The module has no JSON Schema library, so this file implements
// the draft-04 keywords that schema uses: $ref, type, properties,
// additionalProperties, required, items, minItems, uniqueItems, minimum,
// maximum, pattern, format, enum, anyOf and oneOf. Annotations (description,
// default, title) are ignored.

type jsonSchema struct {
	root map[string]any
	errs []string
}

func loadSARIFSchema(t *testing.T) *jsonSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := decodeNumbers(data, &root); err != nil {
		t.Fatal(err)
	}
	return &jsonSchema{root: root}
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// validateDoc validates a JSON document against the schema and returns
// every violation, with its JSON path.
func (s *jsonSchema) validateDoc(data []byte) []string {
	var doc any
	if err := decodeNumbers(data, &doc); err != nil {
		return []string{err.Error()}
	}
	s.errs = nil
	s.check(s.root, doc, "$")
	return s.errs
}

func (s *jsonSchema) fail(path, format string, args ...any) {
	s.errs = append(s.errs, path+": "+fmt.Sprintf(format, args...))
}

func (s *jsonSchema) resolve(ref string) map[string]any {
	node := any(s.root)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	m, _ := node.(map[string]any)
	if m == nil {
		panic("unresolvable $ref " + ref)
	}
	return m
}

// valid reports whether x matches sch without recording errors (for anyOf
// and oneOf).
func (s *jsonSchema) valid(sch map[string]any, x any) bool {
	saved := s.errs
	s.errs = nil
	s.check(sch, x, "")
	ok := len(s.errs) == 0
	s.errs = saved
	return ok
}

func (s *jsonSchema) check(sch map[string]any, x any, path string) {
	if ref, ok := sch["$ref"].(string); ok {
		s.check(s.resolve(ref), x, path) // draft-04: $ref replaces its siblings
		return
	}
	if t, ok := sch["type"]; ok && !typeMatches(t, x) {
		s.fail(path, "type %v, got %T", t, x)
		return
	}
	if enum, ok := sch["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if canonical(e) == canonical(x) {
				found = true
			}
		}
		if !found {
			s.fail(path, "%v not in enum %v", x, enum)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, ok := sch[kw].([]any)
		if !ok {
			continue
		}
		n := 0
		for _, a := range alts {
			if s.valid(a.(map[string]any), x) {
				n++
			}
		}
		if n == 0 || (kw == "oneOf" && n > 1) {
			s.fail(path, "%s: %d alternatives match", kw, n)
		}
	}
	switch x := x.(type) {
	case map[string]any:
		props, _ := sch["properties"].(map[string]any)
		for _, r := range asSlice(sch["required"]) {
			if _, ok := x[r.(string)]; !ok {
				s.fail(path, "missing required property %q", r)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				s.check(ps, x[k], path+"."+k)
				continue
			}
			switch ap := sch["additionalProperties"].(type) {
			case bool:
				if !ap {
					s.fail(path, "property %q not allowed", k)
				}
			case map[string]any:
				s.check(ap, x[k], path+"."+k)
			}
		}
	case []any:
		if min, ok := sch["minItems"].(json.Number); ok {
			if n, _ := min.Int64(); int64(len(x)) < n {
				s.fail(path, "%d items, want at least %d", len(x), n)
			}
		}
		if u, _ := sch["uniqueItems"].(bool); u {
			seen := map[string]bool{}
			for i, e := range x {
				c := canonical(e)
				if seen[c] {
					s.fail(fmt.Sprintf("%s[%d]", path, i), "duplicate item")
				}
				seen[c] = true
			}
		}
		if items, ok := sch["items"].(map[string]any); ok {
			for i, e := range x {
				s.check(items, e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case json.Number:
		v, _ := x.Float64()
		if min, ok := sch["minimum"].(json.Number); ok {
			if m, _ := min.Float64(); v < m {
				s.fail(path, "%v below minimum %v", v, m)
			}
		}
		if max, ok := sch["maximum"].(json.Number); ok {
			if m, _ := max.Float64(); v > m {
				s.fail(path, "%v above maximum %v", v, m)
			}
		}
	case string:
		if p, ok := sch["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(x) {
				s.fail(path, "%q does not match %s", x, p)
			}
		}
		switch sch["format"] {
		case "uri":
			if u, err := url.Parse(x); err != nil || u.Scheme == "" {
				s.fail(path, "%q is not an absolute URI", x)
			}
		case "uri-reference":
			if _, err := url.Parse(x); err != nil {
				s.fail(path, "%q is not a URI reference", x)
			}
		}
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func canonical(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func typeMatches(t any, x any) bool {
	if list, ok := t.([]any); ok {
		for _, e := range list {
			if typeMatches(e, x) {
				return true
			}
		}
		return false
	}
	switch t {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "null":
		return x == nil
	case "number":
		_, ok := x.(json.Number)
		return ok
	case "integer":
		n, ok := x.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return false
}

// TestSchemaValidatorCatchesErrors makes sure the validator is not
// vacuous: documents that break the schema in different ways fail.
func TestSchemaValidatorCatchesErrors(t *testing.T) {
	s := loadSARIFSchema(t)
	good := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[
		{"message":{"text":"m"},"ruleId":"LE1001","level":"warning",
		 "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go","uriBaseId":"SRCROOT"},"region":{"startLine":3,"startColumn":1}}}]}]}]}`
	if errs := s.validateDoc([]byte(good)); len(errs) > 0 {
		t.Fatalf("a valid log fails: %v", errs)
	}
	for name, bad := range map[string]string{
		"wrong version":   strings.Replace(good, `"2.1.0"`, `"2.0.0"`, 1),
		"level not enum":  strings.Replace(good, `"warning"`, `"severe"`, 1),
		"no message":      strings.Replace(good, `"message":{"text":"m"},`, ``, 1),
		"line zero":       strings.Replace(good, `"startLine":3`, `"startLine":0`, 1),
		"unknown driver":  strings.Replace(good, `"name":"x"`, `"name":"x","colour":1`, 1),
		"string for int":  strings.Replace(good, `"startLine":3`, `"startLine":"3"`, 1),
		"no driver name":  strings.Replace(good, `"name":"x"`, `"version":"1"`, 1),
		"runs not array":  `{"version":"2.1.0","runs":{}}`,
		"missing version": `{"runs":[]}`,
	} {
		if errs := s.validateDoc([]byte(bad)); len(errs) == 0 {
			t.Errorf("%s: the validator accepts an invalid log", name)
		}
	}
}
