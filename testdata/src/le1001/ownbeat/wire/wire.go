// Package wire puts forms to a registry server.
package wire

import (
	"net/http"
	"net/url"
	"strings"
)

// Put puts form to u.
func Put(u string, form map[string]string) error {
	vals := url.Values{}
	for k, v := range form {
		vals.Set(k, v)
	}
	req, err := http.NewRequest(http.MethodPut, u, strings.NewReader(vals.Encode()))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Instances fetches the instances the server knows.
func Instances(u string) ([]string, error) {
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return []string{resp.Status}, nil
}
