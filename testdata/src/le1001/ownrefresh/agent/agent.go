// Package agent posts forms to a server and hands back the response.
package agent

import (
	"net/http"
	"net/url"
	"strings"
)

// Agent is an HTTP agent a client is configured with.
type Agent struct{ c *http.Client }

// Post posts form to u with header h.
func (a *Agent) Post(u string, h http.Header, form map[string]string) (*http.Response, error) {
	vals := url.Values{}
	for k, v := range form {
		vals.Set(k, v)
	}
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(vals.Encode()))
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	return a.c.Do(req)
}

// Notify posts form to u and keeps only whether it was accepted.
func (a *Agent) Notify(u string, form map[string]string) error {
	resp, err := a.Post(u, nil, form)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
