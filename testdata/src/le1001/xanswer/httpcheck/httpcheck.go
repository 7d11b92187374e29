// Package httpcheck looks at responses: their status, or the token they
// carry.
package httpcheck

import (
	"fmt"
	"net/http"

	"le1001/xanswer/boundedread"
)

// StatusError is a response with an unexpected status, and its body.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("status %d: %s", e.Code, e.Body) }

func newStatusError(code int, body []byte) *StatusError {
	return &StatusError{Code: code, Body: string(body)}
}

// Check returns nil when resp has the wanted status; otherwise the body,
// read only to be quoted, goes into the error.
func Check(resp *http.Response, want int) error {
	if resp.StatusCode == want {
		return nil
	}
	b, err := boundedread.ReadAll(resp.Body, 4096)
	if err != nil {
		return err
	}
	return newStatusError(resp.StatusCode, b)
}

// TokenOf decodes the access token the response carries.
func TokenOf(resp *http.Response) (string, error) {
	var t struct {
		AccessToken string `json:"access_token"`
	}
	if err := boundedread.DecodeJSON(resp.Body, &t); err != nil {
		return "", err
	}
	return t.AccessToken, nil
}
