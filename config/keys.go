package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkKeys walks a decoded document against the type it decodes into and
// returns one error per key the type does not have, each with its line and
// the nearest known key, in document order; lines records the line of
// every value by its path ("checks[0]", "severity.LE1001",
// "knowledge.effects[2]") so that validation can point at it too.
//
// yaml.v3's strict mode reports unknown keys as "field profil not found in
// type config.Config", a Go type name the user never wrote; walking the
// nodes gives the user's words instead.
func checkKeys(filename string, n *yaml.Node, t reflect.Type, path string, lines map[string]int) []error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return checkKeys(filename, n.Content[0], t, path, lines)
	}
	lines[path] = n.Line
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var errs []error
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Value == "<<" {
				continue // a merge key: its mapping's keys are checked where defined
			}
			f, ok := fields[key.Value]
			if !ok {
				errs = append(errs, unknownKey(filename, key, join(path, key.Value), fields))
				continue
			}
			errs = append(errs, checkKeys(filename, value, f.Type, join(path, key.Value), lines)...)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			errs = append(errs, checkKeys(filename, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), lines)...)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			errs = append(errs, checkKeys(filename, item, t.Elem(), path+"["+strconv.Itoa(i)+"]", lines)...)
		}
	}
	// Any other combination is a type mismatch, which decoding reports.
	return errs
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields maps the YAML keys of a struct type to its fields, as yaml.v3
// names them: the tag's name, or the lowercased field name.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	fields := make(map[string]reflect.StructField)
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f
	}
	return fields
}

// unknownKey is the error for a key the type lacks, with the nearest known
// key when one is close enough to be a misspelling.
func unknownKey(filename string, key *yaml.Node, path string, fields map[string]reflect.StructField) error {
	where := ""
	if i := strings.LastIndex(path, "."); i >= 0 {
		where = " in " + path[:i]
	}
	msg := fmt.Sprintf("unknown key %q%s at %s:%d", key.Value, where, filename, key.Line)
	if s := nearest(key.Value, fields); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		known := make([]string, 0, len(fields))
		for k := range fields {
			known = append(known, k)
		}
		slices.Sort(known)
		msg += "; the keys here are " + strings.Join(known, ", ")
	}
	return fmt.Errorf("%s", msg)
}

// nearest returns the known key closest to key in edit distance, if that
// distance is small enough to be a typo (at most 2, and less than half the
// key), else "".
func nearest(key string, fields map[string]reflect.StructField) string {
	best, bestDist := "", 0
	for k := range fields {
		d := editDistance(strings.ToLower(key), k)
		if best == "" || d < bestDist || d == bestDist && k < best {
			best, bestDist = k, d
		}
	}
	if best == "" || bestDist > 2 || 2*bestDist >= len(key) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
