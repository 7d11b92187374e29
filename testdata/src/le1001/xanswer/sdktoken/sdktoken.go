// Package sdktoken refreshes an OAuth token the way an SDK does: the
// request goes through a sender the credential holds (an interface with an
// http.Client-like Do) or through a retry helper, the response is assigned
// on either path, and its body is read with io.ReadAll and decoded with
// json.Unmarshal in the same function. The twins send the same request and
// close the response unread: a notification.
package sdktoken

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Sender sends a request and returns its response.
type Sender interface {
	Do(*http.Request) (*http.Response, error)
}

type Credential struct {
	sender   Sender
	endpoint string
	retries  int
	access   string
}

// sendWithRetry resends the request until it gets an answer.
func sendWithRetry(s Sender, req *http.Request, attempts int) (*http.Response, error) {
	var last error
	for i := 0; i < attempts; i++ {
		resp, err := s.Do(req)
		if err == nil {
			return resp, nil
		}
		last = err
	}
	return nil, last
}

// Refresh posts for a new token through the sender (or the retry helper)
// and keeps the token decoded from the body.
func (c *Credential) Refresh(viaRetry bool) error {
	req, err := http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		return err
	}
	var resp *http.Response
	if viaRetry {
		resp, err = sendWithRetry(c.sender, req, c.retries)
	} else {
		resp, err = c.sender.Do(req)
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &tok); err != nil {
		return err
	}
	c.access = tok.AccessToken
	return nil
}

// RefreshDirect posts through the sender field alone and decodes the body
// read in the same function.
func (c *Credential) RefreshDirect() error {
	req, err := http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		return err
	}
	resp, err := c.sender.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &tok); err != nil {
		return err
	}
	c.access = tok.AccessToken
	return nil
}

// Announce is Refresh's twin: the same two paths, the response closed
// unread.
func (c *Credential) Announce(viaRetry bool) error {
	req, err := http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader("event=up"))
	if err != nil {
		return err
	}
	var resp *http.Response
	if viaRetry {
		resp, err = sendWithRetry(c.sender, req, c.retries)
	} else {
		resp, err = c.sender.Do(req)
	}
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("announce: status %d", resp.StatusCode)
	}
	return nil
}

// AnnounceDirect is RefreshDirect's twin: the response closed unread.
func (c *Credential) AnnounceDirect() error {
	req, err := http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader("event=up"))
	if err != nil {
		return err
	}
	resp, err := c.sender.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
