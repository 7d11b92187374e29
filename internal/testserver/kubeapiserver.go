package testserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// KubeVersion is the kube-apiserver release the tests run against; it
// matches the k8s.io/client-go v0.34.x the main module uses.
const KubeVersion = "v1.34.2"

// KubeAPIServerEnv names a kube-apiserver binary to use instead of the one
// .ci/build-kube-apiserver.sh caches.
const KubeAPIServerEnv = "GATESIFT_KUBE_APISERVER"

// KubeBuildScript builds the binary; a skip or failure names it.
const KubeBuildScript = ".ci/build-kube-apiserver.sh"

// KubeAPIServerBinary returns the path the build script writes to:
// ${GATESIFT_CACHE:-$HOME/.cache/gatesift}/kube-apiserver-<KubeVersion>,
// or $GATESIFT_KUBE_APISERVER when set. The file may not exist.
func KubeAPIServerBinary() string {
	if p := os.Getenv(KubeAPIServerEnv); p != "" {
		return p
	}
	cache := os.Getenv("GATESIFT_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "gatesift")
	}
	return filepath.Join(cache, "kube-apiserver-"+KubeVersion)
}

// kubeBinary finds the kube-apiserver, skipping the test (failing it when
// Required) with a message naming the build script: Debian does not
// package kube-apiserver, it is built from the Go module proxy.
func kubeBinary(t testing.TB) string {
	t.Helper()
	p := KubeAPIServerBinary()
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p
	}
	msg := fmt.Sprintf("kube-apiserver %s not found at %s: run %s (builds it from the Go module proxy: minutes cold, 391 s in one run on two cores) or set %s",
		KubeVersion, p, KubeBuildScript, KubeAPIServerEnv)
	SkipMissing(t, "kube-apiserver", msg)
	return ""
}

// KubeAPIServer is a real kube-apiserver on a loopback port, storing its
// objects in a real etcd under a prefix of its own. It has no controller
// manager and no nodes: enough for Lease, RBAC and namespace objects.
//
// Clients authenticate with bearer tokens from --token-auth-file:
// AdminToken is in system:masters; UserToken belongs to UserName, who has
// no permissions until a test grants some through RBAC.
type KubeAPIServer struct {
	*Server
	Etcd  *EtcdServer
	creds kubeCreds
}

// UserName is the unprivileged user that UserToken authenticates.
const UserName = "gatesift-elector"

type kubeCreds struct {
	caPEM, certPEM, keyPEM []byte // serving certificate, self-signed
	saPub, saKey           []byte // service-account signing key pair
	admin, user            string // bearer tokens
}

// KubeAPIServerShared returns the kube-apiserver shared by the test binary
// (see Main), on the shared etcd. Tests that restart or kill the API server
// use NewKubeAPIServer.
func KubeAPIServerShared(t testing.TB) *KubeAPIServer {
	t.Helper()
	bin := kubeBinary(t)
	e := Etcd(t)
	k := &KubeAPIServer{Etcd: e}
	k.Server = Shared(t, "kube-apiserver", func() Spec {
		k.creds = newKubeCreds(t)
		return kubeSpec(bin, e, &k.creds)
	})
	if k.creds.admin == "" {
		// Launched by an earlier call: its credentials are in its directory.
		k.creds = readKubeCreds(t, k.Dir())
	}
	return k
}

// NewKubeAPIServer starts a private kube-apiserver for one test, on e (a
// private etcd when e is nil).
func NewKubeAPIServer(t testing.TB, e *EtcdServer) *KubeAPIServer {
	t.Helper()
	bin := kubeBinary(t)
	if e == nil {
		e = NewEtcd(t)
	}
	k := &KubeAPIServer{Etcd: e, creds: newKubeCreds(t)}
	k.Server = Start(t, kubeSpec(bin, e, &k.creds))
	return k
}

// Host is the API server's URL, for rest.Config.Host.
func (k *KubeAPIServer) Host() string { return "https://" + k.Addr() }

// CAData is the PEM certificate the serving certificate chains to, for
// rest.Config.TLSClientConfig.CAData.
func (k *KubeAPIServer) CAData() []byte { return k.creds.caPEM }

// AdminToken authenticates a member of system:masters.
func (k *KubeAPIServer) AdminToken() string { return k.creds.admin }

// UserToken authenticates UserName, who starts without permissions.
func (k *KubeAPIServer) UserToken() string { return k.creds.user }

// Files the credentials are written to in the server's directory.
const (
	kubeCAFile     = "serving-ca.crt"
	kubeCertFile   = "serving.crt"
	kubeKeyFile    = "serving.key"
	kubeSAPubFile  = "sa.pub"
	kubeSAKeyFile  = "sa.key"
	kubeTokensFile = "tokens.csv"
)

func kubeSpec(bin string, e *EtcdServer, c *kubeCreds) Spec {
	// A prefix per API server lets several share one etcd without seeing
	// each other's objects, and keeps them apart from etcdstore's keys.
	prefix := "/" + UniqueName("kube")
	return Spec{
		Name: "kube-apiserver",
		Bin:  bin,
		Setup: func(ctx context.Context, s *Server) error {
			return c.write(s.Dir())
		},
		Args: func(s *Server) []string {
			d := s.Dir()
			return []string{
				"--bind-address=127.0.0.1",
				"--advertise-address=127.0.0.1",
				"--secure-port=" + strconv.Itoa(s.Port()),
				"--etcd-servers=http://" + e.Endpoint(),
				"--etcd-prefix=" + prefix,
				"--tls-cert-file=" + filepath.Join(d, kubeCertFile),
				"--tls-private-key-file=" + filepath.Join(d, kubeKeyFile),
				"--cert-dir=" + filepath.Join(d, "certs"),
				"--service-account-key-file=" + filepath.Join(d, kubeSAPubFile),
				"--service-account-signing-key-file=" + filepath.Join(d, kubeSAKeyFile),
				"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
				"--service-cluster-ip-range=10.0.0.0/24",
				"--token-auth-file=" + filepath.Join(d, kubeTokensFile),
				"--authorization-mode=RBAC",
				"--anonymous-auth=false",
				// Priority and fairness would queue the benchmarks' bursts
				// and adds a controller to every start; a test server of
				// one tenant does not need it.
				"--enable-priority-and-fairness=false",
				"--profiling=false",
			}
		},
		// /readyz passes once every post-start hook has run (RBAC bootstrap
		// roles, the default namespace); the Lease list proves the
		// coordination API is served to an authenticated client.
		Ready: func(ctx context.Context, s *Server) error {
			for _, path := range []string{"/readyz", "/apis/coordination.k8s.io/v1/namespaces/default/leases"} {
				if err := kubeGet(ctx, s.Addr(), c, path); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func kubeGet(ctx context.Context, addr string, c *kubeCreds, path string) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.admin)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return nil
}

// newKubeCreds generates the serving certificate, the service-account key
// pair and two random bearer tokens, all fresh per server.
func newKubeCreds(t testing.TB) kubeCreds {
	t.Helper()
	var c kubeCreds
	var err error
	if c.caPEM, c.certPEM, c.keyPEM, err = servingCert(); err != nil {
		t.Fatalf("kube-apiserver serving certificate: %v", err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if c.saKey, err = keyPEM(saKey); err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	c.saPub = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	c.admin, c.user = randomToken(t), randomToken(t)
	return c
}

func randomToken(t testing.TB) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

func keyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// servingCert makes a CA and a certificate for 127.0.0.1 signed by it. A
// separate CA, not one self-signed leaf, because Go's verifier does not
// accept a CA certificate as the server's own leaf for an IP address.
func servingCert() (caPEM, certPEM, keyPEMOut []byte, err error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gatesift test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	if keyPEMOut, err = keyPEM(key); err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEMOut, nil
}

func (c *kubeCreds) write(dir string) error {
	// Token file lines: token,user,uid[,"group,..."].
	tokens := fmt.Sprintf("%s,gatesift-admin,gatesift-admin,\"system:masters\"\n%s,%s,%s\n", c.admin, c.user, UserName, UserName)
	for name, data := range map[string][]byte{
		kubeCAFile:     c.caPEM,
		kubeCertFile:   c.certPEM,
		kubeKeyFile:    c.keyPEM,
		kubeSAPubFile:  c.saPub,
		kubeSAKeyFile:  c.saKey,
		kubeTokensFile: []byte(tokens),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// readKubeCreds reads back what a shared server's Setup wrote, for callers
// after the first (the spec closure ran only once).
func readKubeCreds(t testing.TB, dir string) kubeCreds {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	c := kubeCreds{caPEM: read(kubeCAFile)}
	lines := strings.Split(strings.TrimSpace(string(read(kubeTokensFile))), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: %d lines; want 2", kubeTokensFile, len(lines))
	}
	c.admin, _, _ = strings.Cut(lines[0], ",")
	c.user, _, _ = strings.Cut(lines[1], ",")
	return c
}
