package le1001

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

type versionCache struct {
	latest string
	staple []byte
}

// Negative: a version check POSTs a question and decodes the answer into
// the process's own cache; the request asks, it does not accumulate.
func (vc *versionCache) checkLatest(ctx context.Context, url string) {
	for range time.Tick(24 * time.Hour) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"product":"gatesift"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		var answer struct{ Latest string }
		json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		vc.latest = answer.Latest
	}
}

// Positive twin: the same POST whose response only has its status code
// checked tells the endpoint something, once per replica.
func (vc *versionCache) announce(ctx context.Context, url string) {
	for range time.Tick(24 * time.Hour) { // want `time.Tick runs loop body on every replica every 24h0m0s: it sends HTTP POST; guarded by nothing`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"product":"gatesift"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		if resp.StatusCode != http.StatusOK {
			vc.latest = ""
		}
		resp.Body.Close()
	}
}

// fetchLatest asks for the latest version and returns the answer.
func fetchLatest(url string) (string, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"product":"gatesift"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Negative: through a helper that returns the answer read from the body.
func (vc *versionCache) pollLatest(url string) {
	for range time.Tick(24 * time.Hour) {
		if v, err := fetchLatest(url); err == nil {
			vc.latest = v
		}
	}
}

// postEvent tells the endpoint about an event; the body is read only to
// quote it in the error.
func postEvent(url string) error {
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"event":"tick"}`))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("event rejected: %s", b)
	}
	return nil
}

// Positive twin: the same helper shape, the body only quoted in an error.
func (vc *versionCache) pollEvents(url string) {
	for range time.Tick(24 * time.Hour) { // want `time.Tick runs loop body on every replica every 24h0m0s: it sends \(via le1001.postEvent\); guarded by nothing`
		if err := postEvent(url); err != nil {
			vc.latest = ""
		}
	}
}

// statusOf posts a status request handed in by the caller (not built here
// by a known query API) and returns the responder's answer.
func statusOf(url string, der []byte) ([]byte, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(der))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// Negative: a staple refresh whose request DER comes from elsewhere; the
// answer, returned by the helper, goes to the process's own memory.
func (vc *versionCache) refreshOwnStaple(url string, der []byte) {
	for range time.Tick(time.Hour) {
		if b, err := statusOf(url, der); err == nil {
			vc.staple = b
		}
	}
}

// pushStatus posts the same bytes and ignores the response.
func pushStatus(url string, der []byte) error {
	req, err := http.NewRequest("POST", url, bytes.NewReader(der))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Positive twin: the same request, its response ignored.
func (vc *versionCache) pushOwnStaple(url string, der []byte) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it sends HTTP POST \(via le1001.pushStatus\); guarded by nothing`
		if pushStatus(url, der) != nil {
			vc.staple = nil
		}
	}
}

// postAlert tells the endpoint about an alert; a rejection's body becomes
// the error text.
func postAlert(url string) error {
	resp, err := http.Post(url, "text/plain", strings.NewReader("disk full"))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return errors.New(string(b))
	}
	return nil
}

// Positive twin of pollLatest: the body read only into an error.
func (vc *versionCache) pollAlerts(url string) {
	for range time.Tick(24 * time.Hour) { // want `time.Tick runs loop body on every replica every 24h0m0s: it sends \(via le1001.postAlert\); guarded by nothing`
		if err := postAlert(url); err != nil {
			vc.latest = err.Error()
		}
	}
}

// Negative: the request is rebuilt with another context before Do (a
// client that sets a per-call deadline); the decoded answer is still read.
func (vc *versionCache) discover(ctx context.Context, url string) {
	for range time.Tick(time.Minute) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"node":"n1"}`))
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := http.DefaultClient.Do(req.WithContext(cctx))
		cancel()
		if err != nil {
			continue
		}
		var answer struct{ Latest string }
		json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		vc.latest = answer.Latest
	}
}

// Positive twin: the same rebuilt request whose response is only closed
// tells the endpoint something, once per replica.
func (vc *versionCache) register(ctx context.Context, url string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST; guarded by nothing`
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"node":"n1"}`))
		resp, err := http.DefaultClient.Do(req.Clone(ctx))
		if err != nil {
			continue
		}
		resp.Body.Close()
	}
}

// Negative: the response is captured by a deferred closure that drains and
// closes it (so it lives in a heap cell); the body is still read as the
// answer.
func (vc *versionCache) fetchState(ctx context.Context, url string) {
	for range time.Tick(time.Minute) {
		if b, err := vc.askState(ctx, url); err == nil {
			vc.staple = b
		}
	}
}

func (vc *versionCache) askState(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"node":"n1"}`))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	return io.ReadAll(resp.Body)
}

// Positive twin: the same captured response only drained and closed.
func (vc *versionCache) pushState(ctx context.Context, url string) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via le1001.\(\*versionCache\).tellState\); guarded by nothing`
		vc.tellState(ctx, url)
	}
}

func (vc *versionCache) tellState(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"node":"n1"}`))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	return nil
}
