package kubestore

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/internal/testserver"
	"k8s.io/client-go/rest"

	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// restConfig is a client configuration for k with token. Its own dialer
// gives every client its own connections (client-go otherwise shares one
// transport among equal configurations), so two clients model two
// processes. QPS -1 turns off client-side rate limiting, as the package
// documentation advises.
func restConfig(host string, ca []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		QPS:             -1,
		Timeout:         10 * time.Second,
		Dial:            (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
}

func newClient(t testing.TB, k *testserver.KubeAPIServer, token string) *coordclient.CoordinationV1Client {
	t.Helper()
	c, err := coordclient.NewForConfig(restConfig(k.Host(), k.CAData(), token))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newStore is a store in namespace "default" with its own admin client.
func newStore(t testing.TB, k *testserver.KubeAPIServer) *Store {
	t.Helper()
	return New(newClient(t, k, k.AdminToken()), "default")
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
