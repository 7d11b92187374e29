// Package rest is a stub of k8s.io/client-go/rest for analyzer tests: the
// names the fixtures use, trivial bodies.
package rest

// Config holds the common attributes that can be passed to a Kubernetes client.
type Config struct {
	Host string
}
