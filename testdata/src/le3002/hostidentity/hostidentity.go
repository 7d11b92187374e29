// Package hostidentity holds client-go leases whose identity is, or is
// not, the host name alone.
package hostidentity

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// hostOnly: the host name is the whole identity.
func hostOnly() (resourcelock.Interface, error) {
	id, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, resourcelock.ResourceLockConfig{Identity: id}) // want `lease is held under New's identity, which can be the host name alone`
}

// withNonce: a per-process UUID is added, as client-go advises.
func withNonce() (resourcelock.Interface, error) {
	id, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, resourcelock.ResourceLockConfig{Identity: id + "_" + uuid.NewString()})
}

// constantSuffix: the twin of withNonce: a constant suffix is shared by
// every process of the host.
func constantSuffix() (resourcelock.Interface, error) {
	id, _ := os.Hostname()
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, resourcelock.ResourceLockConfig{Identity: id + "_controller"}) // want `can be the host name alone`
}

// withPid: the pid joins the name in a format.
func withPid() (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	cfg := resourcelock.ResourceLockConfig{Identity: fmt.Sprintf("%s-%d", host, os.Getpid())}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg)
}

// formatConstant: the twin of withPid: the format adds only constants.
func formatConstant() (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	cfg := resourcelock.ResourceLockConfig{Identity: fmt.Sprintf("%s-%s", host, "leader")}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg) // want `can be the host name alone`
}

// podName: the downward API's pod name is unique per pod.
func podName() (resourcelock.Interface, error) {
	cfg := resourcelock.ResourceLockConfig{Identity: os.Getenv("POD_NAME")}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg)
}

// dotsToNonce: a replacement by a nonce makes the name the process's own.
func dotsToNonce() (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	cfg := resourcelock.ResourceLockConfig{Identity: strings.ReplaceAll(host, ".", uuid.NewString())}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg)
}

// dotsToDashes: the twin of dotsToNonce: a constant replacement.
func dotsToDashes() (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	cfg := resourcelock.ResourceLockConfig{Identity: strings.ReplaceAll(host, ".", "-")}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg) // want `can be the host name alone`
}

// lowered: a case change of the host name alone.
func lowered() (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	cfg := resourcelock.ResourceLockConfig{Identity: strings.ToLower(host)}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, cfg) // want `can be the host name alone`
}

// literal: a lease lock built as a literal is reported at the field.
func literal() resourcelock.Interface {
	host, _ := os.Hostname()
	return &resourcelock.LeaseLock{LockConfig: resourcelock.ResourceLockConfig{Identity: host}} // want `lease is held under its identity`
}

// elector keeps the identity its caller gives, with a default.
type elector struct {
	identity string
	name     string
}

// WithIdentity sets the identity: a value this package does not see.
func (e *elector) WithIdentity(id string) { e.identity = id }

func defaultIdentity() (string, error) { return os.Hostname() }

var invalid = regexp.MustCompile("[^a-z0-9-]")

func sanitize(s string) string { return invalid.ReplaceAllString(s, "-") }

// run: when nobody sets the identity, the default is the host name,
// sanitized.
func (e *elector) run() (resourcelock.Interface, error) {
	if e.identity == "" {
		id, err := defaultIdentity()
		if err != nil {
			return nil, err
		}
		e.identity = id
	}
	rlc := resourcelock.ResourceLockConfig{Identity: sanitize(e.identity)}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, rlc) // want `can be the host name alone`
}

// given: the twin of elector.run: the identity is only ever the caller's.
type given struct{ identity string }

func (g *given) WithIdentity(id string) { g.identity = id }

func (g *given) run() (resourcelock.Interface, error) {
	rlc := resourcelock.ResourceLockConfig{Identity: sanitize(g.identity)}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, rlc)
}

// replacedBy: a replacement the package does not see (a parameter) may add
// anything.
func replacedBy(repl string) (resourcelock.Interface, error) {
	host, _ := os.Hostname()
	rlc := resourcelock.ResourceLockConfig{Identity: invalid.ReplaceAllString(host, repl)}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, rlc)
}

// localDefault: the caller's identity, or the host name when it gives none.
func localDefault(id string) (resourcelock.Interface, error) {
	if id == "" {
		id, _ = os.Hostname()
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, resourcelock.ResourceLockConfig{Identity: id}) // want `can be the host name alone`
}

// callerOnly: the twin of localDefault: the caller's identity, always.
func callerOnly(id string) (resourcelock.Interface, error) {
	return resourcelock.New(resourcelock.LeasesResourceLock, "ns", "lease", nil, nil, resourcelock.ResourceLockConfig{Identity: id})
}
