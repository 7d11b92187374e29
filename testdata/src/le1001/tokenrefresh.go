package le1001

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A client refreshes its own access token on a timer: the POST to the token
// endpoint asks for a token and keeps the answer in the process's memory.
// Every replica holding its own token is by design; the request is a
// question, not a send that accumulates.

type oauthToken struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// tokenTransport authenticates the requests it carries.
type tokenTransport struct {
	inner    http.RoundTripper
	tokenURL string
	token    string
}

// decodeToken reads the token from the response of the token endpoint.
func decodeToken(resp *http.Response) (oauthToken, error) {
	var tok oauthToken
	err := json.NewDecoder(resp.Body).Decode(&tok)
	return tok, err
}

// readJSON reads a whole body and unmarshals it into v.
func readJSON(body io.Reader, v any) error {
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// checkStatus says whether the endpoint accepted the request; it does not
// read the body.
func checkStatus(resp *http.Response) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func tokenForm() io.Reader {
	return strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode())
}

// refreshToken posts the grant through the inner transport and decodes the
// answer in a helper that takes the response.
func (t *tokenTransport) refreshToken(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.tokenURL, tokenForm())
	if err != nil {
		return err
	}
	resp, err := t.inner.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	tok, err := decodeToken(resp)
	if err != nil {
		return err
	}
	t.token = tok.AccessToken
	return nil
}

// Negative: the token is asked for and kept.
func (t *tokenTransport) keepFresh(ctx context.Context) {
	for range time.Tick(time.Minute) {
		t.refreshToken(ctx)
	}
}

// refreshTokenBody posts the grant with a client and reads the answer in a
// helper that takes the body.
func (t *tokenTransport) refreshTokenBody(ctx context.Context, client *http.Client) error {
	req, err := http.NewRequest("POST", t.tokenURL, tokenForm())
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var tok oauthToken
	if err := readJSON(resp.Body, &tok); err != nil {
		return err
	}
	t.token = tok.AccessToken
	return nil
}

// Negative: the same question, its body read by a helper.
func (t *tokenTransport) keepFreshBody(ctx context.Context, client *http.Client) {
	for range time.Tick(time.Minute) {
		t.refreshTokenBody(ctx, client)
	}
}

// revokeToken posts to the revocation endpoint through the inner
// transport; only the status is looked at.
func (t *tokenTransport) revokeToken(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.tokenURL+"/revoke", tokenForm())
	if err != nil {
		return err
	}
	resp, err := t.inner.RoundTrip(req)
	if err != nil {
		return err
	}
	return checkStatus(resp)
}

// Positive twin of keepFresh: the response goes to a helper that checks
// only its status; the POST tells the endpoint something, once per replica.
func (t *tokenTransport) keepRevoking(ctx context.Context) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via le1001.\(\*tokenTransport\).revokeToken\); guarded by nothing`
		t.revokeToken(ctx)
	}
}

// announceBody posts with a client; the body is only drained by a helper
// that discards what it reads.
func (t *tokenTransport) announceBody(client *http.Client) error {
	req, err := http.NewRequest("POST", t.tokenURL+"/announce", tokenForm())
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return drain(resp.Body)
}

func drain(body io.Reader) error {
	_, err := io.Copy(io.Discard, body)
	return err
}

// Positive twin of keepFreshBody: the body handed to a helper that only
// drains it.
func (t *tokenTransport) keepAnnouncing(client *http.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via le1001.\(\*tokenTransport\).announceBody\); guarded by nothing`
		t.announceBody(client)
	}
}
