// Package boundedread reads streams with a bound. It imports nothing about
// HTTP: whether its callers' requests ask or tell is decided from its
// Reads facts, in their packages.
package boundedread

import (
	"encoding/json"
	"fmt"
	"io"
)

// ReadAll reads r to its end and returns the bytes, failing past max.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("more than %d bytes", max)
	}
	return b, nil
}

// DecodeJSON decodes r into v.
func DecodeJSON(r io.Reader, v any) error {
	return json.NewDecoder(r).Decode(v)
}

// Drain reads r to its end and keeps nothing.
func Drain(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}
