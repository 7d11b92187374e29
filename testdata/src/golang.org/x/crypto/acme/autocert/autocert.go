// Package autocert is a minimal stand-in for golang.org/x/crypto/acme/autocert.
package autocert

import (
	"context"
	"crypto/tls"

	"golang.org/x/crypto/acme"
)

// Manager obtains and renews the certificates this process serves.
type Manager struct {
	Client *acme.Client
}

// GetCertificate returns the certificate for the handshake, ordering it
// first when the cache has none.
func (m *Manager) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	ctx := context.Background()
	o, err := m.Client.AuthorizeOrder(ctx, acme.DomainIDs(hello.ServerName))
	if err != nil {
		return nil, err
	}
	der, _, err := m.Client.CreateOrderCert(ctx, o.FinalizeURL, nil, true)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: der}, nil
}
