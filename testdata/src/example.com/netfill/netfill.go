// Package netfill fills values from a remote service: it reaches the
// network.
package netfill

import (
	"io"
	"net/http"
)

// Fill copies a remote document into w.
func Fill(w io.Writer, url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

// Decode reads a remote value into v.
func Decode(v *any, url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	*v = resp.Status
	return nil
}
