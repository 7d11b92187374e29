// Package acme is a minimal stand-in for golang.org/x/crypto/acme: every
// request to the CA is a signed POST, as in the real client.
package acme

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"net/http"
)

// Client talks to one ACME CA for one account.
type Client struct {
	Key          crypto.Signer
	DirectoryURL string
	HTTPClient   *http.Client
}

// Order is a certificate order.
type Order struct {
	URI         string
	Status      string
	FinalizeURL string
	AuthzURLs   []string
}

// Authorization proves control of one identifier.
type Authorization struct {
	URI    string
	Status string
}

// AuthzID is an identifier to authorize.
type AuthzID struct {
	Type  string
	Value string
}

// DomainIDs makes DNS identifiers of names.
func DomainIDs(names ...string) []AuthzID {
	ids := make([]AuthzID, len(names))
	for i, n := range names {
		ids[i] = AuthzID{Type: "dns", Value: n}
	}
	return ids
}

// post sends a signed request and hands the response back unread.
func (c *Client) post(ctx context.Context, url string, payload any) (*http.Response, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return c.HTTPClient.Do(req)
}

// AuthorizeOrder opens an order for ids.
func (c *Client) AuthorizeOrder(ctx context.Context, ids []AuthzID) (*Order, error) {
	resp, err := c.post(ctx, c.DirectoryURL+"/new-order", ids)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	o := new(Order)
	return o, json.NewDecoder(resp.Body).Decode(o)
}

// WaitOrder polls the order until it is ready or invalid.
func (c *Client) WaitOrder(ctx context.Context, url string) (*Order, error) {
	resp, err := c.post(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	o := new(Order)
	return o, json.NewDecoder(resp.Body).Decode(o)
}

// CreateOrderCert finalizes the order with csr and returns the chain.
func (c *Client) CreateOrderCert(ctx context.Context, url string, csr []byte, bundle bool) ([][]byte, string, error) {
	resp, err := c.post(ctx, url, csr)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var der [][]byte
	return der, url, json.NewDecoder(resp.Body).Decode(&der)
}

// RevokeCert revokes a certificate.
func (c *Client) RevokeCert(ctx context.Context, key crypto.Signer, cert []byte) error {
	resp, err := c.post(ctx, c.DirectoryURL+"/revoke-cert", cert)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
