// Package retryablehttp is a small stand-in for
// github.com/hashicorp/go-retryablehttp: the signatures the knowledge base
// names, no network behind them.
package retryablehttp

import "net/http"

// Request wraps an http.Request.
type Request struct{ *http.Request }

// NewRequest builds a request.
func NewRequest(method, url string, rawBody interface{}) (*Request, error) {
	r, err := http.NewRequest(method, url, nil)
	return &Request{r}, err
}

// Client retries requests.
type Client struct{ HTTPClient *http.Client }

// Do sends the request.
func (c *Client) Do(req *Request) (*http.Response, error) { return c.HTTPClient.Do(req.Request) }
