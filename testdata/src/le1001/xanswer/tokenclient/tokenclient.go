// Package tokenclient posts to a token endpoint and to a webhook. Each
// response is read, or not, by a helper of another package (boundedread,
// httpcheck): whether a POST asks (a token grant) or tells (a
// notification) is known only from those packages' facts, and what this
// package's summaries say is what its importers see.
package tokenclient

import (
	"net/http"
	"net/url"
	"strings"

	"le1001/xanswer/boundedread"
	"le1001/xanswer/httpcheck"
)

type Client struct {
	hc       *http.Client
	tokenURL string
	hookURL  string
	token    []byte
}

func grant() *strings.Reader {
	return strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode())
}

// FetchToken asks for a token and keeps the bytes read.
func (c *Client) FetchToken() error {
	resp, err := http.Post(c.tokenURL, "application/x-www-form-urlencoded", grant())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := boundedread.ReadAll(resp.Body, 1<<16)
	if err != nil {
		return err
	}
	c.token = b
	return nil
}

// FetchTokenRaw asks for a token and returns the bytes read to its caller.
func (c *Client) FetchTokenRaw() ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.tokenURL, grant())
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := httpcheck.Check(resp, http.StatusOK); err != nil {
		return nil, err
	}
	return boundedread.ReadAll(resp.Body, 1<<16)
}

// FetchTokenDecoded asks for a token; a helper that takes the response
// decodes it.
func (c *Client) FetchTokenDecoded() (string, error) {
	req, err := http.NewRequest(http.MethodPost, c.tokenURL, grant())
	if err != nil {
		return "", err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return httpcheck.TokenOf(resp)
}

// Notify tells the webhook; the body is drained, not read.
func (c *Client) Notify(event string) error {
	resp, err := http.Post(c.hookURL, "text/plain", strings.NewReader(event))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return boundedread.Drain(resp.Body)
}

// NotifyChecked tells the webhook; its body is read only into the error of
// an unexpected status.
func (c *Client) NotifyChecked(event string) error {
	req, err := http.NewRequest(http.MethodPost, c.hookURL, strings.NewReader(event))
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return httpcheck.Check(resp, http.StatusAccepted)
}

// NotifyRead tells the webhook; the body is read with the bounded reader
// and the bytes are dropped.
func (c *Client) NotifyRead(event string) error {
	resp, err := http.Post(c.hookURL, "text/plain", strings.NewReader(event))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = boundedread.ReadAll(resp.Body, 1024)
	return err
}
