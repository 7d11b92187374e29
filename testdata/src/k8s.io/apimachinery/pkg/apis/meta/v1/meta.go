// Package v1 is a stub of k8s.io/apimachinery/pkg/apis/meta/v1 for analyzer
// tests: the real names and signatures used by the fixtures, trivial bodies.
package v1

// ObjectMeta is metadata that all persisted resources must have.
type ObjectMeta struct {
	Name      string
	Namespace string
	Labels    map[string]string
}
