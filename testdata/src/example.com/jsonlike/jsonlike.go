// Package jsonlike is an encoder configuration reached through an
// interface, as some JSON libraries offer; it reaches nothing outside the
// process.
package jsonlike

import (
	"encoding/json"
	"io"
)

// API makes encoders.
type API interface {
	NewEncoder(w io.Writer) *Encoder
}

// Encoder writes values as JSON.
type Encoder struct{ e *json.Encoder }

// Encode writes v.
func (e *Encoder) Encode(v any) error { return e.e.Encode(v) }

type config struct{}

func (config) NewEncoder(w io.Writer) *Encoder { return &Encoder{e: json.NewEncoder(w)} }

// Standard is the configured instance.
var Standard API = config{}
